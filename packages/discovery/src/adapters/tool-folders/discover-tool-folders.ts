import type { Dirent } from 'node:fs';
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { ToolpackError, createDiagnostic } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';
import { createReadDiagnostic } from '../../read-error.ts';
import type { ParseCache, SourceResult } from '../../types.ts';
import { TOOL_FOLDER_SCRIPT_EXTENSIONS } from './check-tool-script.ts';
import { METADATA_FILE_NAMES, describeToolFolder } from './describe-tool-folder.ts';
import { compareMetadata } from './compare-metadata.ts';
import { resolveToolFolderSession } from './resolve-tool-folder-session.ts';

export interface DiscoverToolFoldersOptions {
  /**
   * A folder of tool folders, or a glob of such folders (`.bot/workflows/*\/tools`),
   * absolute or relative to `cwd`.
   */
  root: string;
  cwd: string;
  cache?: ParseCache;
  /** Modules and scripts loaded into the runspace before a tool (`preload:`), relative to `cwd`. */
  preload?: readonly string[];
}

/** Bump when `describeToolFolder`'s output changes, so cached results are not served. */
export const TOOL_FOLDER_PARSER = 'tool-folder@2';

const SCRIPT_FILE = new RegExp(`^script\\.(${TOOL_FOLDER_SCRIPT_EXTENSIONS.join('|')})$`, 'i');

/**
 * dotbot's convention (docs/dotbot-tool-folders.md): every sub-folder of `root` holding a
 * metadata file and a `script.<ext>` is a tool (see `describeToolFolder` for the format and
 * the checks).
 * Sub-folders with neither are left alone; one with a script but no metadata is a warning.
 * A glob that matches nothing gives a warning; a plain folder that does not exist throws
 * `E_SOURCE_MISSING`. Results come in a stable order (roots, then folders, by name) so
 * dotbot's last-loaded-wins rule picks the same tool every time.
 */
export async function discoverToolFolders(
  options: DiscoverToolFoldersOptions,
): Promise<SourceResult> {
  const { cwd, cache } = options;
  const roots = await resolveRoots(options);
  if (roots.length === 0) {
    return {
      tools: [],
      diagnostics: [
        createDiagnostic(
          'warning',
          'W_SOURCE_EMPTY',
          `No folder matches the tool-folder pattern ${options.root}.`,
          { path: path.resolve(cwd, options.root) },
          'Check the pattern, or create the folders it should match.',
        ),
      ],
    };
  }
  const [perRoot, prepared] = await Promise.all([
    Promise.all(roots.map((root) => discoverRoot(root, cache))),
    resolveToolFolderSession({
      roots,
      cwd,
      ...(options.preload === undefined ? {} : { preload: options.preload }),
    }),
  ]);
  const { session, broken } = prepared;
  const tools = perRoot.flatMap((result) => result.tools);
  return {
    // A tool whose session cannot be had would fail every call: E_PRELOAD_MISSING says why.
    tools: tools.flatMap((tool) => {
      const { invocation } = tool;
      if (invocation.runner !== 'pwsh' || invocation.mode !== 'tool-folder') return [tool];
      if (broken) return [];
      return session === undefined ? [tool] : [{ ...tool, invocation: { ...invocation, session } }];
    }),
    diagnostics: [...prepared.diagnostics, ...perRoot.flatMap((result) => result.diagnostics)],
  };
}

async function resolveRoots(options: DiscoverToolFoldersOptions): Promise<string[]> {
  const { root, cwd } = options;
  // Globs are written with forward slashes; a Windows path is a plain folder.
  if (isDynamicPattern(root.replace(/\\/g, '/'))) {
    const matches = await glob([root.replace(/\\/g, '/')], {
      cwd,
      absolute: true,
      onlyDirectories: true,
      expandDirectories: false,
    });
    return [...new Set(matches.map((match) => path.resolve(match)))].sort();
  }
  const absolute = path.resolve(cwd, root);
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) {
    throw new ToolpackError(
      'E_SOURCE_MISSING',
      info === undefined
        ? `The tool-folder source ${root} does not exist (looked in ${absolute}).`
        : `The tool-folder source ${root} is not a folder.`,
      {
        path: absolute,
        hint: 'Point `tools:` (or --tools) at a folder whose sub-folders hold metadata.yaml and script.<ext>.',
      },
    );
  }
  return [absolute];
}

async function discoverRoot(root: string, cache: ParseCache | undefined): Promise<SourceResult> {
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    return { tools: [], diagnostics: [createReadDiagnostic(root, error)] };
  }
  const folders: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const folder = path.join(root, entry.name);
    if (
      entry.isDirectory() ||
      (entry.isSymbolicLink() && (await stat(folder).catch(() => undefined))?.isDirectory())
    ) {
      folders.push(folder);
    }
  }
  folders.sort();
  const results = await Promise.all(folders.map((folder) => discoverFolder(folder, cache)));
  return {
    tools: results.flatMap((r) => r.tools),
    diagnostics: results.flatMap((r) => r.diagnostics),
  };
}

async function discoverFolder(
  folder: string,
  cache: ParseCache | undefined,
): Promise<SourceResult> {
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true }))
      .filter((e) => e.isFile() || e.isSymbolicLink())
      .map((e) => e.name);
  } catch (error) {
    return { tools: [], diagnostics: [createReadDiagnostic(folder, error)] };
  }
  const diagnostics: Diagnostic[] = [];
  const metadataNames = METADATA_FILE_NAMES.filter((name) => names.includes(name));
  const scripts = names.filter((name) => SCRIPT_FILE.test(name)).sort();
  const metadataName = metadataNames[0];
  // dotbot's server reads metadata.json only; a metadata.yaml beside it (dotbot's older
  // format, kept by many projects) is compared with it instead of being ignored silently.
  const sibling =
    metadataName === 'metadata.json'
      ? metadataNames.find((name) => name === 'metadata.yaml' || name === 'metadata.yml')
      : undefined;
  if (metadataName === undefined) {
    if (scripts.length > 0) {
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_NO_METADATA',
          `The folder ${path.basename(folder)} has ${scripts.join(', ')} but no metadata file, so it is not a tool.`,
          { path: folder },
          'Add metadata.yaml with name, description and inputSchema.',
        ),
      );
    }
    return { tools: [], diagnostics };
  }
  const unread = metadataNames.slice(1).filter((name) => name !== sibling);
  if (unread.length > 0) {
    diagnostics.push(
      createDiagnostic(
        'warning',
        'W_SEVERAL_METADATA',
        `The folder ${path.basename(folder)} has ${metadataNames.join(' and ')}; only ${metadataName}${sibling === undefined ? '' : ` (compared with ${sibling})`} is read.`,
        { path: path.join(folder, metadataName) },
        'Keep one metadata file.',
      ),
    );
  }
  const metadataPath = path.join(folder, metadataName);
  const scriptPath = scripts.length === 1 ? path.join(folder, scripts[0] ?? '') : undefined;
  const siblingPath = sibling === undefined ? undefined : path.join(folder, sibling);
  const files = [
    metadataPath,
    ...(scriptPath === undefined ? [] : [scriptPath]),
    ...(siblingPath === undefined ? [] : [siblingPath]),
  ];
  const describe = async (contents: string[]) => {
    const described = await describeToolFolder({
      folder,
      metadataPath,
      metadata: contents[0] ?? '',
      scripts,
      ...(scriptPath === undefined ? {} : { scriptPath, script: contents[1] ?? '' }),
    });
    if (siblingPath === undefined) return described;
    const disagreement = compareMetadata({
      read: { path: metadataPath, text: contents[0] ?? '' },
      other: { path: siblingPath, text: contents[contents.length - 1] ?? '' },
    });
    return disagreement === undefined
      ? described
      : { ...described, diagnostics: [...described.diagnostics, disagreement] };
  };
  try {
    const result =
      cache === undefined
        ? // Synchronous reads: file-parse-cache.ts says why.
          await describe(files.map((file) => readFileSync(file, 'utf8')))
        : await cache.read(TOOL_FOLDER_PARSER, files, describe);
    return { tools: result.tools, diagnostics: [...diagnostics, ...result.diagnostics] };
  } catch (error) {
    // A file that vanished or cannot be read is that folder's problem, never the others'.
    const failure =
      typeof (error as NodeJS.ErrnoException).code === 'string'
        ? createReadDiagnostic(metadataPath, error)
        : createDiagnostic(
            'error',
            'E_TOOL_FOLDER',
            `The tool folder ${path.basename(folder)} could not be described: ${(error as Error).message}`,
            { path: folder },
          );
    return { tools: [], diagnostics: [...diagnostics, failure] };
  }
}
