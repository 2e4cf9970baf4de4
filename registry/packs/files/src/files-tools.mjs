/* global process */
// The files pack's tools: list, read and search files, read-only and jailed to the project
// root (see open-inside.mjs). Self-contained (Node built-ins and the pack's own modules) so an
// installed pack needs no node_modules;
// tools are branded with the symbol @toolpack/core's defineTool uses.
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import {
  childPath,
  closeOpened,
  folderListingPath,
  joinInside,
  lstatChild,
  openInside,
  readOpenedFile,
  toDisplay,
} from './open-inside.mjs';
import { holdsPrivateKey, isSecretPath, SECRET_HINT } from './secret-files.mjs';

const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');
const SKIPPED_DIRS = new Set(['.git', 'node_modules', '.toolpack', '.hg', '.svn']);
const SEARCH_FILE_LIMIT = 2 * 1024 * 1024;
const LINE_LIMIT = 2000;

function tool(spec) {
  return Object.freeze({ [TOOL_BRAND]: true, ...spec });
}

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

export const filesList = tool({
  name: 'files_list',
  title: 'List files',
  description:
    'Lists the files and folders under a folder of the project (type, size, modification time), optionally recursively. Never leaves the project root.',
  inputSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'The folder, relative to the project root.',
        default: '.',
        maxLength: 4096,
      },
      recursive: { type: 'boolean', description: 'Descend into sub-folders.', default: false },
      max_depth: {
        type: 'integer',
        description: 'How deep to descend when recursive.',
        minimum: 1,
        maximum: 20,
        default: 5,
      },
      include_hidden: {
        type: 'boolean',
        description: 'Include names starting with a dot.',
        default: false,
      },
      max_entries: {
        type: 'integer',
        description: 'List at most this many entries.',
        minimum: 1,
        maximum: 10000,
        default: 500,
      },
    },
    additionalProperties: false,
  },
  annotations: readOnly,
  run: (args, context) => listFiles(args, context),
});

export const filesRead = tool({
  name: 'files_read',
  title: 'Read a file',
  description:
    'Reads a text file of the project, whole or a range of lines, with a size cap. Refuses files outside the project root (also through symbolic or hard links), binary files and secret files such as .env, keys and credentials.',
  inputSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'The file, relative to the project root.',
        minLength: 1,
        maxLength: 4096,
      },
      start_line: {
        type: 'integer',
        description: 'The first line to return (1-based).',
        minimum: 1,
        default: 1,
      },
      max_lines: {
        type: 'integer',
        description: 'Return at most this many lines.',
        minimum: 1,
        maximum: 20000,
        default: 2000,
      },
      max_bytes: {
        type: 'integer',
        description: 'Read at most this many bytes.',
        minimum: 1,
        maximum: 5242880,
        default: 262144,
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  annotations: readOnly,
  run: (args, context) => readTextFile(args, context),
});

export const filesSearch = tool({
  name: 'files_search',
  title: 'Search files',
  description:
    'Searches the text files of the project for a word, phrase or regular expression and returns the matching lines with their file and line number. Skips hidden files, .git, node_modules, binary, large and secret files.',
  inputSchema: {
    type: 'object',
    properties: {
      pattern: {
        type: 'string',
        description: 'The text (or regular expression) to find.',
        minLength: 1,
        maxLength: 1000,
      },
      regex: {
        type: 'boolean',
        description: 'Read pattern as a JavaScript regular expression.',
        default: false,
      },
      case_sensitive: {
        type: 'boolean',
        description: 'Match upper and lower case exactly.',
        default: false,
      },
      path: {
        type: 'string',
        description: 'Search under this folder (or in this file), relative to the project root.',
        default: '.',
        maxLength: 4096,
      },
      glob: {
        type: 'string',
        description: 'Only files whose name matches this wildcard (* and ?), e.g. *.ts.',
        maxLength: 200,
      },
      include_hidden: {
        type: 'boolean',
        description: 'Search files and folders whose names start with a dot too.',
        default: false,
      },
      max_results: {
        type: 'integer',
        description: 'Stop after this many matching lines.',
        minimum: 1,
        maximum: 2000,
        default: 100,
      },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  annotations: readOnly,
  run: (args, context) => searchFiles(args, context),
});

/** The project root, resolved through links: everything opened must stay inside it. */
async function getRoot(context) {
  const root = context?.projectRoot ?? process.env.TOOLPACK_PROJECT_ROOT ?? process.cwd();
  return realpath(root);
}

function allowsHardLinks() {
  return process.env.FILES_ALLOW_HARD_LINKS === '1';
}

/**
 * A second name of a file can sit in the project while the file's other name (and owner's
 * intent) is elsewhere: the jail cannot tell, so such files are refused unless allowed.
 */
function isHardLinked(stats) {
  return stats.isFile() && stats.nlink > 1 && !allowsHardLinks();
}

async function listFiles(args, context) {
  const root = await getRoot(context);
  const label = args.path ?? '.';
  const start = await openInside(root, joinInside(root, label), { label, folder: true });
  const maxEntries = args.max_entries ?? 500;
  const maxDepth = args.recursive === true ? (args.max_depth ?? 5) : 1;
  const entries = [];
  let truncated = false;
  const walk = async (folder, depth) => {
    let names;
    try {
      names = await readdir(folderListingPath(folder), { withFileTypes: true });
    } catch {
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of names) {
      if (entries.length >= maxEntries) {
        truncated = true;
        return;
      }
      if (args.include_hidden !== true && entry.name.startsWith('.')) continue;
      const stats = await lstatChild(folder, entry.name);
      if (stats === undefined) continue;
      const type = stats.isSymbolicLink()
        ? 'symlink'
        : stats.isDirectory()
          ? 'folder'
          : stats.isFile()
            ? 'file'
            : 'other';
      const display = toDisplay(root, path.join(folder.real, entry.name));
      entries.push({
        path: display,
        type,
        ...(type === 'file' ? { size: stats.size } : {}),
        modified: stats.mtime.toISOString(),
      });
      // Links are listed, never followed: following one could walk out of the project.
      if (type === 'folder' && depth < maxDepth && !SKIPPED_DIRS.has(entry.name))
        await withSubfolder(root, folder, entry.name, (sub) => walk(sub, depth + 1));
    }
  };
  try {
    await walk(start, 1);
  } finally {
    await closeOpened(start);
  }
  return { path: start.display, entries, truncated };
}

/**
 * Runs `visit` on the sub-folder `name` of an opened folder, when it still is that folder:
 * one swapped for a link since readdir saw it is skipped, so a walk stays a walk of the tree.
 */
async function withSubfolder(root, parent, name, visit) {
  let sub;
  try {
    sub = await openInside(root, childPath(parent, name), {
      label: name,
      folder: true,
      noFollow: true,
    });
  } catch {
    return;
  }
  try {
    if (sub.real === path.join(parent.real, name)) await visit(sub);
  } finally {
    await closeOpened(sub);
  }
}

async function readTextFile(args, context) {
  const root = await getRoot(context);
  const opened = await openInside(root, joinInside(root, args.path), { label: args.path });
  const { display, stats: info } = opened;
  let buffer;
  try {
    if (info.isDirectory()) throw new Error(`${display} is a folder; list it with files_list.`);
    if (!info.isFile()) throw new Error(`${display} is not a regular file.`);
    if (isSecretPath(display))
      throw new Error(
        `${display} looks like a secret (keys, tokens, .env, credentials); it is not read. ${SECRET_HINT}`,
      );
    if (isHardLinked(info))
      throw new Error(
        `${display} is a hard link (${info.nlink} names for one file), so its content may belong outside the project; it is not read. Set FILES_ALLOW_HARD_LINKS=1 in the server environment to allow it.`,
      );
    buffer = await readOpenedFile(opened, args.max_bytes ?? 262144);
  } finally {
    await closeOpened(opened);
  }
  if (isBinary(buffer))
    throw new Error(`${display} is a binary file (${info.size} bytes); only text files are read.`);
  if (holdsPrivateKey(buffer))
    throw new Error(`${display} holds a private key; it is not read. ${SECRET_HINT}`);
  const text = buffer.toString('utf8');
  const lines = text.split(/\r?\n/);
  const bytesTruncated = info.size > buffer.length;
  // A cut in the middle of the file leaves a partial last line: drop it unless it is all there is.
  if (bytesTruncated && lines.length > 1) lines.pop();
  const startLine = args.start_line ?? 1;
  const maxLines = args.max_lines ?? 2000;
  const selected = lines.slice(startLine - 1, startLine - 1 + maxLines);
  const endLine = selected.length === 0 ? startLine - 1 : startLine - 1 + selected.length;
  return {
    path: display,
    size: info.size,
    startLine,
    endLine,
    content: selected.join('\n'),
    truncated: bytesTruncated || startLine - 1 + maxLines < lines.length,
  };
}

async function searchFiles(args, context) {
  const root = await getRoot(context);
  const label = args.path ?? '.';
  const maxResults = args.max_results ?? 100;
  const flags = args.case_sensitive === true ? '' : 'i';
  let matcher;
  try {
    matcher = new RegExp(args.regex === true ? args.pattern : escapeRegExp(args.pattern), flags);
  } catch (error) {
    throw new Error(`pattern is not a valid regular expression: ${error.message}`, {
      cause: error,
    });
  }
  const nameFilter = args.glob === undefined ? undefined : globToRegExp(args.glob);
  const matches = [];
  let filesSearched = 0;
  let truncated = false;
  // Searches one opened file; `opened` is closed by the caller.
  const searchOpened = async (opened) => {
    const { display, stats } = opened;
    const name = display.slice(display.lastIndexOf('/') + 1);
    if (nameFilter !== undefined && !nameFilter.test(name)) return;
    if (!stats.isFile() || stats.size > SEARCH_FILE_LIMIT) return;
    if (isSecretPath(display) || isHardLinked(stats)) return;
    const bytes = await readOpenedFile(opened, SEARCH_FILE_LIMIT).catch(() => undefined);
    if (bytes === undefined || isBinary(bytes) || holdsPrivateKey(bytes)) return;
    filesSearched += 1;
    const lines = bytes.toString('utf8').split(/\r?\n/);
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index].slice(0, LINE_LIMIT);
      if (!matcher.test(line)) continue;
      if (matches.length >= maxResults) {
        truncated = true;
        return;
      }
      matches.push({ path: display, line: index + 1, text: line.trim() });
    }
  };
  const searchChild = async (folder, name) => {
    // Checked by name before opening, so a skipped file is never opened.
    const display = toDisplay(root, path.join(folder.real, name));
    if (isSecretPath(display)) return;
    let opened;
    try {
      opened = await openInside(root, childPath(folder, name), { label: name, noFollow: true });
    } catch {
      return;
    }
    try {
      if (opened.real === path.join(folder.real, name)) await searchOpened(opened);
    } finally {
      await closeOpened(opened);
    }
  };
  const walk = async (folder) => {
    let entries;
    try {
      entries = await readdir(folderListingPath(folder), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (truncated || context?.signal?.aborted) return;
      if (args.include_hidden !== true && entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await withSubfolder(root, folder, entry.name, walk);
      } else if (entry.isFile()) {
        await searchChild(folder, entry.name);
      }
    }
  };
  const start = await openInside(root, joinInside(root, label), { label });
  try {
    if (start.stats.isDirectory()) await walk(start);
    else await searchOpened(start);
  } finally {
    await closeOpened(start);
  }
  return { pattern: args.pattern, filesSearched, matches, truncated };
}

function isBinary(bytes) {
  return bytes.subarray(0, 8000).includes(0);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function globToRegExp(glob) {
  const source = [...glob]
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : escapeRegExp(char)))
    .join('');
  return new RegExp(`^${source}$`, 'i');
}
