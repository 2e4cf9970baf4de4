import { readFileSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool } from '@modelcontextprotocol/server';
import {
  SOURCE_LOCATION_KEYS,
  type SourceLocationKey,
  type SourceSpec,
  type ToolCallResult,
} from '@toolpack/core';
import type { McpToolHost } from './create-mcp-server.ts';

export interface ServerPathRoots {
  /** The project the server serves: paths in it are shown relative to it, as `mcp list` does. */
  projectRoot: string;
  /**
   * Folders of sources and packs outside the project: shown relative to the project too (a
   * pack installed in the project is under its root already).
   */
  sourceRoots?: readonly string[];
  /** Toolpack's own installed packages (the PowerShell host script, the module child). */
  toolpackFolder?: string | undefined;
  /**
   * The folders that hold Toolpack's runtime folder and the tools' temp files:
   * `$XDG_RUNTIME_DIR` when set, and the temp folder. Default from the environment.
   */
  runtimeFolder?: string;
  tempFolder?: string;
  homeFolder?: string;
}

interface Root {
  /** How the root is written in the text: a path, or a `file://` URL. */
  written: string;
  /** What replaces it; `''` for the project root, whose paths become relative. */
  shown: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

function readRealPath(folder: string): string | undefined {
  try {
    return realpathSync(folder);
  } catch {
    return undefined;
  }
}

/**
 * Every form of each root a text may carry: the path as given and as resolved (`/tmp` and
 * `/private/tmp` on macOS), each also as a `file://` URL (Node stack traces of ES modules).
 */
function listRootForms(folder: string, shown: string): Root[] {
  const forms = new Set([path.resolve(folder)]);
  const real = readRealPath(folder);
  if (real !== undefined) forms.add(real);
  const roots: Root[] = [];
  for (const form of forms) {
    // The file system root, or a home of `/`, would turn every path into something else.
    if (path.dirname(form) === form) continue;
    const href = pathToFileURL(form).href;
    roots.push(
      { written: href, shown },
      { written: `file://${form}`, shown },
      { written: form, shown },
    );
  }
  return roots;
}

/**
 * The one rewriting of what a client sees: every absolute path of this machine under a known
 * root, and every `file://` URL of one, becomes a path relative to the project (as `mcp list`
 * shows them), or starts with `<toolpack>`, `<runtime>`, `<tmp>` or `~`. A client (and the
 * model behind it) learns nothing of the server's file system from an error, and a path it is
 * shown is one that means something in the project. Longer roots win (a project in the temp
 * folder is shown relative to the project).
 */
export function createServerPathRewriter(roots: ServerPathRoots): (text: string) => string {
  const projectRoot = path.resolve(roots.projectRoot);
  const list: Root[] = [...listRootForms(projectRoot, '')];
  for (const source of roots.sourceRoots ?? []) {
    const relative = path.relative(projectRoot, source).split(path.sep).join('/');
    // A folder on another drive has no relative form: it is left to the roots below.
    if (relative !== '' && !path.isAbsolute(relative))
      list.push(...listRootForms(source, `${relative}/`));
  }
  if (roots.toolpackFolder !== undefined)
    list.push(...listRootForms(roots.toolpackFolder, '<toolpack>/'));
  const runtime = roots.runtimeFolder ?? process.env.XDG_RUNTIME_DIR;
  if (runtime !== undefined && path.isAbsolute(runtime))
    list.push(...listRootForms(runtime, '<runtime>/'));
  list.push(...listRootForms(roots.tempFolder ?? tmpdir(), '<tmp>/'));
  list.push(...listRootForms(roots.homeFolder ?? homedir(), '~/'));
  list.sort((a, b) => b.written.length - a.written.length);
  const shownBy = new Map<string, string>();
  for (const root of list) if (!shownBy.has(root.written)) shownBy.set(root.written, root.shown);
  // A root only where a path starts (not inside a longer name) and ends (a separator, or no
  // more path characters): `/work/app` is not the start of `/work/apple`.
  const pattern = new RegExp(
    `(?<![\\w.~-])(${[...shownBy.keys()].map(escapeRegExp).join('|')})(?:([\\\\/])|(?![\\w.-]))`,
    'gu',
  );
  return (text) =>
    text.replace(pattern, (_match, root: string, separator: string | undefined) => {
      const shown = shownBy.get(root) ?? root;
      if (separator !== undefined) return shown;
      // The root itself, named alone.
      return shown === '' ? '.' : shown.slice(0, -1);
    });
}

/** `folder` is `root` or inside it. */
function isWithin(root: string, folder: string): boolean {
  const relative = path.relative(root, folder);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The folders a project's sources name (`scripts: ../shared`, an installed pack's), resolved
 * against the project; a module named without a path lives where PowerShell finds it, which
 * the home and temp roots cover when it is the user's. A pack served from Toolpack's cache
 * (`mcp serve --pack`) is no folder of the project: relative to wherever a client started the
 * server it read `../../../home/ada/.cache/toolpack/served/...`, different per client; it is
 * left to the home and temp roots (`~/.cache/toolpack/served/json/1.1.0-.../pack/...`).
 */
export function findSourceRoots(
  projectRoot: string,
  sources: readonly SourceSpec[],
  folders: { homeFolder?: string; tempFolder?: string } = {},
): string[] {
  const shared = [folders.homeFolder ?? homedir(), folders.tempFolder ?? tmpdir()];
  const roots = new Set<string>();
  for (const source of sources) {
    for (const key of SOURCE_LOCATION_KEYS) {
      const location = (source as Partial<Record<SourceLocationKey, string>>)[key];
      if (location === undefined) continue;
      if (key === 'module' && !/[\\/]/u.test(location)) continue;
      const resolved = path.resolve(projectRoot, location);
      if (
        source.pack !== undefined &&
        !isWithin(path.resolve(projectRoot), resolved) &&
        shared.some((folder) => isWithin(path.resolve(folder), resolved))
      )
        continue;
      roots.add(
        key === 'module' && path.extname(resolved) !== '' ? path.dirname(resolved) : resolved,
      );
    }
  }
  return [...roots];
}

/**
 * The folder Toolpack's own packages are installed in (`node_modules/@toolpack`, or the
 * repository's `packages`): the PowerShell host script and the module child run from there.
 */
export function findToolpackFolder(): string | undefined {
  for (
    let folder = import.meta.dirname;
    path.dirname(folder) !== folder;
    folder = path.dirname(folder)
  ) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
        name?: unknown;
      };
      if (manifest.name === '@toolpack/server') return path.dirname(folder);
    } catch {
      // Not a package's folder: look further up.
    }
  }
  return undefined;
}

/** Every string in a JSON value rewritten. */
function rewriteStrings(value: unknown, rewrite: (text: string) => string): unknown {
  if (typeof value === 'string') return rewrite(value);
  if (Array.isArray(value)) return value.map((item) => rewriteStrings(item, rewrite));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, rewriteStrings(item, rewrite)]),
  );
}

/**
 * A failed result is the runtime's and the tool's complaints: its text is rewritten. A
 * successful one is the tool's data, returned on purpose (a path may be what the caller asked
 * for), and stays as it is, unless the server wrote it itself (`describe_tool`'s source).
 */
function rewriteResult(
  result: ToolCallResult,
  rewrite: (text: string) => string,
  writtenByServer: boolean,
): ToolCallResult {
  if (result.isError !== true && !writtenByServer) return result;
  const rewritten: ToolCallResult = {
    ...result,
    content: result.content.map((block) =>
      block.type === 'text' ? { ...block, text: rewrite(block.text) } : block,
    ),
  };
  if (result.structuredContent !== undefined && writtenByServer)
    rewritten.structuredContent = rewriteStrings(result.structuredContent, rewrite) as Record<
      string,
      unknown
    >;
  return rewritten;
}

/**
 * A JSON Schema with every `description` rewritten; nothing else of it (defaults, enums)
 * changes. A part with nothing to rewrite is returned as it was, not copied: the first
 * tools/list after a reload stays as cheap as before for a catalogue without server paths.
 */
function rewriteDescriptions(value: unknown, rewrite: (text: string) => string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => rewriteDescriptions(item, rewrite));
    return items.every((item, index) => item === value[index]) ? value : items;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const rewritten =
      key === 'description' && typeof item === 'string'
        ? rewrite(item)
        : rewriteDescriptions(item, rewrite);
    if (rewritten !== item) (copy ??= { ...value })[key] = rewritten;
  }
  return copy ?? value;
}

/**
 * The host every connection is served from, with the server's paths hidden in all it hands a
 * client: tool descriptions in tools/list, failed results and the server's own answers, log
 * and progress messages. The one boundary where results leave the server, for both transports.
 */
export function hideServerPaths(
  host: McpToolHost,
  rewrite: (text: string) => string,
  served: {
    /** Whether a tool's results are the server's own text (find_tools, describe_tool). */
    answersForServer?: (name: string) => boolean;
  } = {},
): McpToolHost {
  // The list is rebuilt only when a reload replaces it.
  let listedFrom: readonly Tool[] | undefined;
  let listed: Tool[] = [];
  return {
    ...host,
    listTools() {
      const tools = host.listTools();
      if (tools !== listedFrom) {
        listedFrom = tools;
        listed = tools.map((tool) => rewriteDescriptions(tool, rewrite) as Tool);
      }
      return listed;
    },
    async callTool(name, args, options) {
      const answer = await host.callTool(name, args, {
        ...options,
        ...(options.onProgress === undefined
          ? {}
          : {
              onProgress: (progress) =>
                options.onProgress?.(
                  progress.message === undefined
                    ? progress
                    : { ...progress, message: rewrite(progress.message) },
                ),
            }),
        onLog: (level, message) => options.onLog(level, rewrite(message)),
      });
      if ('unknownTool' in answer) return answer;
      // call_tool answers with the result of the tool it ran: judged by that tool.
      const ran =
        name === 'call_tool' && typeof (args as { name?: unknown } | null)?.name === 'string'
          ? (args as { name: string }).name
          : name;
      const writtenByServer = served.answersForServer?.(ran) === true;
      return { result: rewriteResult(answer.result, rewrite, writtenByServer) };
    },
  };
}
