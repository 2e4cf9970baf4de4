import {
  addPack,
  parsePackSpecifier,
  type ApprovePack,
  type DownloadListener,
  type InstalledPackReport,
} from '@toolpack/packs';
import { collectSourcesReport } from '../../../collect-sources-report.ts';
import type { UnrunnableTool } from '../../../find-unrunnable-tools.ts';
import type { CommandContext } from '../../../io.ts';
import { createStagedPackCheck } from '../check-staged-packs.ts';
import {
  createCommandCache,
  openCommandRegistry,
  openCommandSource,
  parseFeedSpecifier,
} from '../project-registry.ts';
import { withPackNameSuggestion } from '../suggest-pack-name.ts';

export interface AddProjectPackOptions extends CommandContext {
  /** The pack, optionally with a semver range: jira, jira@^1.2.0, acme/jira@1.x. */
  specifier: string;
  /** Serve the pack's tools as `<alias>_<tool>` (default: the pack's name). */
  as?: string;
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  /** A NuGet feed of PowerShell modules instead of the registry (`--source`). */
  source?: string;
  onDownload?: DownloadListener;
  /** Asked before anything is installed; without it a pack that needs approval is refused. */
  approve?: ApprovePack;
}

/**
 * Adds a pack to the project and installs it, refusing one whose unpacked tools would
 * collide with the project's; nothing changes when anything fails.
 */
export async function addProjectPack(options: AddProjectPackOptions): Promise<InstalledPackReport> {
  const { name, range } =
    options.source === undefined
      ? parsePackSpecifier(options.specifier)
      : parseFeedSpecifier(options.specifier);
  const feed =
    options.source === undefined ? undefined : await openCommandSource(options, options.source);
  const registry = feed?.registry ?? (await openCommandRegistry(options, options.registry));
  return withPackNameSuggestion(
    {
      registry,
      name,
      retry: (closest) =>
        `mcp pack add ${closest}${range === undefined ? '' : `@${range}`}${options.as === undefined ? '' : ` --as ${options.as}`}${options.source === undefined ? '' : ` --source ${options.source}`}`,
    },
    () =>
      addPack({
        projectDir: options.cwd,
        name,
        ...(range === undefined ? {} : { range }),
        ...(options.as === undefined ? {} : { alias: options.as }),
        registry,
        ...(feed === undefined ? {} : { source: feed.source }),
        cache: createCommandCache(options),
        checkTools: createStagedPackCheck(options),
        ...(options.onDownload === undefined ? {} : { onDownload: options.onDownload }),
        ...(options.approve === undefined ? {} : { approve: options.approve }),
        env: options.env,
      }),
  );
}

/**
 * The added pack's tools this machine cannot run (pwsh or an interpreter missing), found as
 * `mcp list` finds them, so the install says so at once instead of every call failing later.
 * Its unset env is left out: the add already warns about each variable, with its description.
 * Empty when the project cannot be discovered: the add itself succeeded, and `mcp list` will
 * show that problem.
 */
export async function findAddedUnrunnableTools(
  context: CommandContext,
  report: Pick<InstalledPackReport, 'tools' | 'missingEnv'>,
): Promise<UnrunnableTool[]> {
  const added = new Set(report.tools);
  const envSet = Object.fromEntries(report.missingEnv.map((env) => [env.name, 'set']));
  try {
    const { unrunnable } = await collectSourcesReport({
      cwd: context.cwd,
      env: { ...context.env, ...envSet },
      sources: [],
      flags: {},
    });
    return unrunnable.filter((entry) => added.has(entry.tool));
  } catch {
    return [];
  }
}
