import path from 'node:path';
import picomatch from 'picomatch';
import {
  createDiagnostic,
  normalizeToolName,
  type Diagnostic,
  type DiscoveredTool,
  type SourceSpec,
  type ToolSandbox,
} from '@toolpack/core';
import { BUILTIN_TOOL_NAMES, createBuiltinTools } from './builtins/builtin-tools.ts';
import { checkWorkflowSteps } from './adapters/workflows/index.ts';
import { chooseSandbox } from './source-sandbox.ts';
import type { SourceResult } from './types.ts';

const DEFAULT_MAX_TOOLS = 50;

/**
 * Composition errors a server must neither start nor reload with: serving anyway would hide
 * tools the user counts on, or run another source's code under a trusted name.
 */
export const REFUSING_CODES: ReadonlySet<Diagnostic['code']> = new Set([
  'E_MAX_TOOLS',
  'E_PACK_COLLISION',
  'E_COLLISION',
]);

export interface ComposeOptions {
  include?: readonly string[];
  exclude?: readonly string[];
  /** Above it the server refuses to start (an error diagnostic). Default 50; built-ins do not count. */
  maxTools?: number;
  /**
   * Collisions become errors instead of warnings (a collision involving a pack always is one):
   * neither tool is served and a server refuses to start.
   */
  strict?: boolean;
  /** Serve `find_tools` and `describe_tool` (default true). */
  builtins?: boolean;
  /**
   * What else the project runs unconfined, relative to its root, besides its own sources: the
   * files its `interpreters:` name. Confined sources may never write them (`sandbox.protect`).
   */
  protect?: readonly string[];
}

export interface ComposedSource {
  spec: SourceSpec;
  result: SourceResult;
}

export interface Composition {
  tools: DiscoveredTool[];
  diagnostics: Diagnostic[];
}

/**
 * docs/architecture.md "Composition": in source order, prefix, then `include`/`exclude` (matched
 * against the final name and the name the source used, case-insensitively as PowerShell's
 * wildcards are), then collisions, then `maxTools`. Built-ins come first so a project's own
 * tool of the same name replaces them. Of two same-named tools the last one wins with a
 * warning, unless a pack is involved or under `strict`: then it is an error and the name is
 * served by neither, because a pack (third-party code) must never take over another
 * source's tool by picking its alias and tool names, and a refused name must not be
 * callable through `mcp call` either.
 */
export function composeTools(
  sources: readonly ComposedSource[],
  options: ComposeOptions = {},
): Composition {
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, DiscoveredTool>();
  /** Names refused by an error collision, with the first tool that had the name. */
  const refused = new Map<string, DiscoveredTool>();
  const globalFilter = createFilter(options.include, options.exclude);

  const builtins = options.builtins === false ? [] : createBuiltinTools();
  for (const tool of builtins) {
    if (globalFilter(tool.name, tool.originalName)) byName.set(tool.name, tool);
  }

  for (const { spec, result } of sources) {
    diagnostics.push(...result.diagnostics);
    const sourceFilter = createFilter(spec.include, spec.exclude);
    const prefix = choosePrefix(spec);
    const sandbox = chooseSandbox(
      spec,
      sources.map((source) => source.spec),
      options.protect,
    );
    for (const discovered of result.tools) {
      const tool = applyPrefix(discovered, prefix, spec.pack, sandbox, spec.interpreters);
      if (
        !sourceFilter(tool.name, tool.originalName, discovered.name) ||
        !globalFilter(tool.name, tool.originalName, discovered.name)
      ) {
        continue;
      }
      const first = refused.get(tool.name);
      if (first !== undefined) {
        diagnostics.push(describeCollision(first, tool, options.strict === true));
        continue;
      }
      const earlier = byName.get(tool.name);
      if (earlier !== undefined) {
        const collision = describeCollision(earlier, tool, options.strict === true);
        diagnostics.push(collision);
        if (collision.severity === 'error') {
          byName.delete(tool.name);
          refused.set(tool.name, earlier);
          continue;
        }
      }
      byName.set(tool.name, tool);
    }
  }

  let tools = [...byName.values()];
  const workflows = tools.filter((t) => t.invocation.runner === 'workflow');
  if (workflows.length > 0) {
    // A workflow that calls an unknown tool or itself (through others) would only fail at
    // call time: refuse it now, like any other tool whose source has an error.
    const problems = checkWorkflowSteps(workflows, new Set(byName.keys()));
    diagnostics.push(...problems);
    const refused = new Set(problems.filter((d) => d.severity === 'error').map((d) => d.path));
    tools = tools.filter((t) => t.invocation.runner !== 'workflow' || !refused.has(t.source.path));
  }

  const maxTools = options.maxTools ?? DEFAULT_MAX_TOOLS;
  const counted = tools.filter((t) => t.source.kind !== 'builtin').length;
  if (counted > maxTools) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_MAX_TOOLS',
        `${counted} tools are more than maxTools (${maxTools}); a server refuses to start with this many.`,
        { path: '<composition>' },
        `Narrow them with --include/--exclude (or include/exclude in toolpack.yaml), or raise the limit with --max-tools ${counted} (maxTools: ${counted}).`,
      ),
    );
  }
  return { tools, diagnostics };
}

function createFilter(include: readonly string[] = [], exclude: readonly string[] = []) {
  const included =
    include.length === 0 ? undefined : picomatch([...include], { nocase: true, dot: true });
  const excluded =
    exclude.length === 0 ? undefined : picomatch([...exclude], { nocase: true, dot: true });
  return (...names: string[]): boolean =>
    (included === undefined || names.some((n) => included(n))) &&
    (excluded === undefined || !names.some((n) => excluded(n)));
}

function choosePrefix(spec: SourceSpec): string | undefined {
  if (spec.pack !== undefined) return spec.pack;
  if (typeof spec.prefix === 'string') return spec.prefix;
  if (spec.prefix !== true) return undefined;
  const location =
    'module' in spec
      ? spec.module
      : 'tools' in spec
        ? spec.tools
        : 'scripts' in spec
          ? spec.scripts
          : undefined;
  if (location === undefined) return undefined;
  const base = path.basename(location.replace(/[\\/]+$/, ''));
  return 'module' in spec ? base.replace(/\.(psd1|psm1|[cm]?[jt]s)$/i, '') : base;
}

function applyPrefix(
  tool: DiscoveredTool,
  prefix: string | undefined,
  pack: string | undefined,
  sandbox: ToolSandbox | undefined,
  interpreters: SourceSpec['interpreters'],
): DiscoveredTool {
  let name = tool.name;
  if (prefix !== undefined && !name.toLowerCase().startsWith(`${prefix.toLowerCase()}_`)) {
    name = normalizeToolName(`${prefix}_${name}`).name;
  }
  if (name === tool.name && pack === undefined && sandbox === undefined) return tool;
  return {
    ...tool,
    name,
    source: {
      ...tool.source,
      ...(pack === undefined ? {} : { pack }),
      ...(sandbox === undefined ? {} : { sandbox }),
      // A pack's tools carry its own interpreters, so no other map can reach them.
      ...(pack === undefined || interpreters === undefined ? {} : { interpreters }),
    },
  };
}

function describeCollision(
  earlier: DiscoveredTool,
  later: DiscoveredTool,
  strict: boolean,
): Diagnostic {
  const where = (tool: DiscoveredTool) =>
    tool.source.kind === 'builtin'
      ? 'the built-in'
      : tool.source.line === undefined
        ? tool.source.path
        : `${tool.source.path}:${tool.source.line}`;
  const isBuiltin =
    (BUILTIN_TOOL_NAMES as readonly string[]).includes(earlier.name) &&
    earlier.source.kind === 'builtin';
  const at = {
    path: later.source.path,
    ...(later.source.line === undefined ? {} : { line: later.source.line }),
  };
  if (earlier.source.pack !== undefined || later.source.pack !== undefined) {
    const describe = (tool: DiscoveredTool) =>
      tool.source.pack === undefined
        ? where(tool)
        : `the pack ${tool.source.pack}'s tool ${tool.originalName} (${where(tool)})`;
    const packs = [...new Set([later.source.pack, earlier.source.pack])].filter(
      (alias): alias is string => alias !== undefined,
    );
    return createDiagnostic(
      'error',
      'E_PACK_COLLISION',
      `Two tools are named ${later.name}: ${describe(later)} and ${describe(earlier)}. A pack's tool never replaces another, so neither is served.`,
      at,
      `Serve ${packs.length === 1 ? 'the pack' : 'one pack'} under another alias in toolpack.yaml (packs: <alias>: <pack>@<range>; now ${packs.join(', ')}), or drop one tool with exclude:.`,
    );
  }
  return createDiagnostic(
    strict ? 'error' : 'warning',
    strict ? 'E_COLLISION' : 'W_COLLISION',
    strict
      ? `Two tools are named ${later.name}: ${where(later)} and ${where(earlier)} (--strict), so neither is served.`
      : `Two tools are named ${later.name}: ${where(later)} replaces ${where(earlier)} (the last one wins).`,
    at,
    isBuiltin
      ? `Rename your tool, or exclude the built-in with --exclude ${later.name} if you mean to replace it.`
      : 'Rename one of them, exclude one with --exclude, or give their sources a prefix (--prefix).',
  );
}
