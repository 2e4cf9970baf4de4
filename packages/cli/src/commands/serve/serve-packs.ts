import path from 'node:path';
import {
  ToolpackError,
  describePermissions,
  type PackPermissions,
  type SourceSpec,
} from '@toolpack/core';
import {
  fetchServedPack,
  openRegistry,
  parsePackSpecifier,
  resolveRegistryLocation,
  type InstalledPack,
  type ServedPack,
} from '@toolpack/packs';
import type { CommandContext } from '../../io.ts';
import {
  openCommandSource,
  parseFeedSpecifier,
  readTarballOrigins,
} from '../pack/project-registry.ts';
import { withPackNameSuggestion } from '../pack/suggest-pack-name.ts';
import {
  diagnoseWithheldEnv,
  type ResolvedSources,
  type SourceFlagValues,
} from '../../source-flags.ts';

export interface ResolveServedPacksOptions {
  /** `--pack` values: `name`, `name@range`. */
  specs: readonly string[];
  /** `--registry`; else `$TOOLPACK_REGISTRY`, else the default (no toolpack.yaml is read). */
  registry?: string;
  /**
   * `--source`: a NuGet feed of PowerShell modules instead of the registry, as `mcp pack add
   * --source` takes it (a URL, a folder, or a `feeds:` name of the toolpack.yaml here, of which
   * only `feeds:` is read); `--pack` then names modules by NuGet id or pack name.
   */
  source?: string;
  flags: SourceFlagValues;
  context: CommandContext;
}

export interface ResolvedServedPacks {
  resolved: ResolvedSources;
  served: ServedPack[];
  /** What stderr says at start: each pack, where it came from, and what it may touch. */
  lines: string[];
}

/**
 * `mcp serve --pack`: each named pack fetched into the user cache (`fetchServedPack`) and its
 * sources confined to the permissions its toolpack.yaml declares, as sources a server takes.
 * The working directory is the project root (a pack granted `project` gets it) and nothing is
 * written there: no parse cache, and no toolpack.yaml or lockfile is read or written.
 */
export async function resolveServedPacks(
  options: ResolveServedPacksOptions,
): Promise<ResolvedServedPacks> {
  const { context, flags } = options;
  const specs = options.specs.map((spec) =>
    options.source === undefined ? parsePackSpecifier(spec) : parseFeedSpecifier(spec),
  );
  const registry =
    options.source === undefined
      ? openServedRegistry(options.registry, context)
      : (await openCommandSource(context, options.source)).registry;

  const served: ServedPack[] = [];
  for (const spec of specs) {
    const pack = await withPackNameSuggestion(
      {
        registry,
        name: spec.name,
        retry: (closest) =>
          `mcp serve --pack ${closest}${spec.range === undefined ? '' : `@${spec.range}`}${options.source === undefined ? '' : ` --source ${options.source}`}`,
      },
      () =>
        fetchServedPack({
          name: spec.name,
          ...(spec.range === undefined ? {} : { range: spec.range }),
          registry,
          projectDir: context.cwd,
          env: context.env,
        }),
    );
    const twin = served.find((other) => other.alias === pack.alias);
    if (twin !== undefined) {
      throw new ToolpackError(
        'E_USAGE',
        `--pack ${spec.name} and --pack ${twin.name} would both serve their tools as ${pack.alias}_*.`,
        {
          hint: 'Serve each pack once; two packs of one short name need a project (mcp pack add <name> --as <alias>).',
        },
      );
    }
    served.push(pack);
  }
  refuseFilesystemRootAsProject(served, context.cwd);

  const packs: InstalledPack[] = served.map((pack) => ({
    alias: pack.alias,
    name: pack.name,
    version: pack.version,
    dir: pack.dir,
    env: pack.manifest.env,
    permissions: pack.permissions,
    ...(pack.manifest.interpreters === undefined
      ? {}
      : { interpreters: pack.manifest.interpreters }),
  }));
  const envAllowList = [...new Set(packs.flatMap((pack) => pack.env.map((e) => e.name)))];
  const sources: SourceSpec[] = served.flatMap((pack) => pack.sources);
  const resolved: ResolvedSources = {
    origin: 'packs',
    envAllowList,
    packs,
    // Each pack's interpreters ride on its own sources: no project-wide map to merge them into.
    diagnostics: [
      ...served.flatMap((pack) => pack.diagnostics),
      ...packs.flatMap(diagnoseWithheldEnv),
    ],
    options: {
      cwd: context.cwd,
      sources,
      // The working directory is not a project: nothing is written into it.
      cache: false,
      envAllowList,
      ...(flags.include ? { include: flags.include } : {}),
      ...(flags.exclude ? { exclude: flags.exclude } : {}),
      ...(flags.strict ? { strict: true } : {}),
      ...(flags.lenientHelp ? { lenientHelp: true } : {}),
      ...(flags.maxTools === undefined ? {} : { maxTools: flags.maxTools }),
    },
  };
  return {
    resolved,
    served,
    lines: served.flatMap((pack) => describeServedPack(pack, registry.location, context.cwd)),
  };
}

function openServedRegistry(flag: string | undefined, context: CommandContext) {
  const { location } = resolveRegistryLocation({ flag, env: context.env, cwd: context.cwd });
  const origins = readTarballOrigins(context.env);
  // No describeTools: a folder registry would import a pack's modules here, unconfined, to
  // list tools nobody reads; the server lists them from the unpacked copy, in the sandbox.
  return openRegistry({ location, ...(origins.length === 0 ? {} : { tarballOrigins: origins }) });
}

/** `json@1.1.0 (downloaded from ...) as json_*; it may:` and its permission lines. */
function describeServedPack(pack: ServedPack, registry: string, projectDir: string): string[] {
  const from =
    pack.origin === 'download'
      ? `downloaded from ${registry}${pack.replaced === undefined ? '' : `; the cached copy had changed (${pack.replaced}), so it was unpacked again`}`
      : pack.origin === 'cache'
        ? 'from the cache'
        : `from the cache: ${pack.registryProblem?.replace(/\.$/, '') ?? 'the registry cannot be reached'}, so newer versions and yanks are unknown`;
  const lines = [
    `serving ${pack.name}@${pack.version} (${from}) as ${pack.alias}_*; its tools may:`,
    ...describePermissions(pack.permissions).map((line) => `  ${line}`),
  ];
  if (grantsProject(pack.permissions)) lines.push(`  (the project is ${projectDir})`);
  if (pack.yanked === true)
    lines.push(`warning: ${pack.name}@${pack.version} was yanked; pin another version.`);
  if (pack.deprecated !== undefined)
    lines.push(`warning: ${pack.name}@${pack.version} is deprecated: ${pack.deprecated}`);
  return lines;
}

function grantsProject(permissions: PackPermissions): boolean {
  const { read, write } = permissions.filesystem;
  return [...read, ...write].some((root) => root === 'project' || root.startsWith('project/'));
}

/**
 * Some MCP clients start servers in `/`: a pack granted `project` would then be granted the
 * whole disk, which nobody chose by naming the pack.
 */
function refuseFilesystemRootAsProject(served: readonly ServedPack[], cwd: string): void {
  if (path.parse(cwd).root !== cwd) return;
  const pack = served.find((candidate) => grantsProject(candidate.permissions));
  if (pack === undefined) return;
  throw new ToolpackError(
    'E_USAGE',
    `${pack.name} may use the project, which is the working directory, and that is the filesystem root (${cwd}): it would get the whole disk.`,
    {
      hint: `Start it in the folder it should work on: mcp -C <folder> serve --pack ${pack.name} (in a client's configuration, "args": ["-C", "<folder>", ...] or its "cwd").`,
    },
  );
}
