import path from 'node:path';
import { LEAST_PERMISSIONS, type Diagnostic, type DiscoveredTool } from '@toolpack/core';
import {
  listPackSources,
  packInstallDir,
  type CheckStagedPacks,
  type StagedPackInfo,
  type ToolDefinition,
} from '@toolpack/packs';
import type { CommandContext } from '../../io.ts';
import { resolveSources } from '../../source-flags.ts';

/**
 * The check `mcp pack add` and `mcp pack update` run on unpacked packs before putting them
 * in place: the project is discovered as `mcp serve` would discover it (its toolpack.yaml,
 * its other installed packs, the built-ins, include/exclude), the staged packs are discovered
 * from their unpacked content (JS modules in discovery's child, in the sandbox), and the two are
 * composed by the same rule the server applies. What the registry's VersionDoc says about
 * the tools plays no part.
 */
export function createStagedPackCheck(
  io: CommandContext,
  options: {
    /**
     * `false` discovers only the staged packs (their tools, for toolpack.lock's pins) and
     * reports no collisions: `mcp pack install` puts back what the lock names, and must not
     * fail on a problem of the project's own sources.
     */
    collisions?: boolean;
  } = {},
): CheckStagedPacks {
  return async (staged) => {
    const { composeTools, discoverTools } = await import('@toolpack/discovery');
    const resolved = await resolveSources({ sources: [], flags: { cache: false }, cwd: io.cwd });
    const aliases = new Set(staged.map((p) => p.alias));
    // Each pack's script roots serve its own interpreters' extensions (set on its sources).
    const common = {
      ...resolved.options,
      cache: false as const,
      maxTools: Number.MAX_SAFE_INTEGER,
    };
    const mine = await discoverTools({
      ...common,
      builtins: false,
      // Not approved yet: a module's top-level code runs in the sandbox with no grant at all.
      sources: staged.flatMap(
        (p) =>
          listPackSources({
            projectDir: io.cwd,
            ...p,
            confine: LEAST_PERMISSIONS,
            ...(p.manifest.interpreters === undefined
              ? {}
              : { interpreters: p.manifest.interpreters }),
          }).sources,
      ),
    });
    const unread = findUnread(mine.diagnostics, staged, io.cwd);
    if (options.collisions === false)
      return { tools: listServedTools(mine.tools), collisions: [], unread };
    const rest = await discoverTools({
      ...common,
      sources: resolved.options.sources.filter((s) => s.pack === undefined || !aliases.has(s.pack)),
    });
    // Both lists are already prefixed and filtered: composing them again only adds the
    // collisions between the staged packs and the rest of the project.
    const all = composeTools(
      [
        { spec: { scripts: '.' }, result: rest },
        { spec: { scripts: '.' }, result: mine },
      ],
      { builtins: false, maxTools: Number.MAX_SAFE_INTEGER },
    );
    const collisions = all.diagnostics
      .filter((d) => d.code === 'E_PACK_COLLISION' && !rest.diagnostics.includes(d))
      .map((d) => showFinalPaths(d, staged, io.cwd));
    return { tools: listServedTools(mine.tools), collisions, unread };
  };
}

/** Per alias, each served tool's definition: what toolpack.lock pins. */
function listServedTools(tools: readonly DiscoveredTool[]): Record<string, ToolDefinition[]> {
  const served: Record<string, ToolDefinition[]> = {};
  for (const tool of tools) {
    const alias = tool.source.pack;
    if (alias === undefined) continue;
    (served[alias] ??= []).push({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    });
  }
  return served;
}

/**
 * Per alias, discovery's errors about that pack's files: what it could not read there (a
 * script that does not parse, a module that failed to load) is not known to be gone.
 */
function findUnread(
  diagnostics: readonly Diagnostic[],
  staged: readonly StagedPackInfo[],
  cwd: string,
): Record<string, string[]> {
  const unread: Record<string, string[]> = {};
  for (const diagnostic of diagnostics) {
    if (diagnostic.severity !== 'error') continue;
    const pack = staged.find((p) => {
      const relative = toPosix(path.relative(cwd, p.dir));
      const where = toPosix(diagnostic.path);
      return where.startsWith(toPosix(p.dir)) || where.startsWith(relative);
    });
    if (pack === undefined) continue;
    const shown = showFinalPaths(diagnostic, staged, cwd);
    const file = path.isAbsolute(shown.path) ? toPosix(path.relative(cwd, shown.path)) : shown.path;
    const where = `${file}${shown.line === undefined ? '' : `:${shown.line}`}`;
    (unread[pack.alias] ??= []).push(`${where}: ${shown.message}`);
  }
  return unread;
}

/**
 * Names the folder a staged pack will have once installed, not its passing staging folder,
 * and paths relative to the project.
 */
function showFinalPaths(
  diagnostic: Diagnostic,
  staged: readonly StagedPackInfo[],
  cwd: string,
): Diagnostic {
  let { message, path: where } = diagnostic;
  for (const pack of staged) {
    const final = packInstallDir(cwd, pack.alias);
    message = message.split(pack.dir).join(final);
    where = where.split(pack.dir).join(final);
    const from = toPosix(path.relative(cwd, pack.dir));
    const to = toPosix(path.relative(cwd, final));
    message = message.split(from).join(to);
    where = where.split(from).join(to);
  }
  // Paths relative to the project, as `mcp list` shows them.
  const root = `${cwd}${path.sep}`;
  return { ...diagnostic, message: message.split(root).join(''), path: where };
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}
