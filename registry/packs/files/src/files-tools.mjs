/* global process, Buffer */
// The files pack's tools: list, read and search files, read-only and jailed to the project
// root. Self-contained (no imports outside Node) so an installed pack needs no node_modules;
// tools are branded with the symbol @toolpack/core's defineTool uses.
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');
const SKIPPED_DIRS = new Set(['.git', 'node_modules', '.toolpack', '.hg', '.svn']);
// Read and searched only with FILES_ALLOW_SECRETS=1: an agent has no business reading keys.
const SECRET_FILES = [
  /^\.env(\..*)?$/i,
  /\.pem$/i,
  /\.key$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)(\.|$)/i,
  /^\.netrc$/i,
  /^\.npmrc$/i,
  /^\.pgpass$/i,
];
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
    'Reads a text file of the project, whole or a range of lines, with a size cap. Refuses files outside the project root (also through symbolic links), binary files and secret files such as .env.',
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

/** The project root, resolved through links: every path must stay inside it. */
async function getRoot(context) {
  const root = context?.projectRoot ?? process.env.TOOLPACK_PROJECT_ROOT ?? process.cwd();
  return realpath(root);
}

/**
 * Resolves `relative` inside `root`, refusing absolute paths, `..` escapes and symbolic links
 * that lead outside. Returns the real path and the path relative to the root.
 */
export async function resolveInside(root, relative) {
  if (typeof relative !== 'string' || relative.includes('\0'))
    throw new Error('The path is not valid.');
  if (path.isAbsolute(relative) || /^[A-Za-z]:/.test(relative) || relative.startsWith('\\'))
    throw new Error(`${relative} is an absolute path; give a path relative to the project root.`);
  const lexical = path.resolve(root, relative);
  if (!isWithin(root, lexical)) throw new Error(`${relative} is outside the project root.`);
  let real;
  try {
    real = await realpath(lexical);
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR')
      throw new Error(`${relative} does not exist.`, { cause: error });
    throw new Error(`${relative} cannot be opened: ${error.code ?? error.message}.`, {
      cause: error,
    });
  }
  if (!isWithin(root, real))
    throw new Error(`${relative} leads outside the project root through a symbolic link.`);
  return { real, display: toDisplay(root, real) };
}

function isWithin(root, target) {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function toDisplay(root, target) {
  return path.relative(root, target).split(path.sep).join('/') || '.';
}

function isSecret(name) {
  return (
    process.env.FILES_ALLOW_SECRETS !== '1' && SECRET_FILES.some((pattern) => pattern.test(name))
  );
}

async function listFiles(args, context) {
  const root = await getRoot(context);
  const start = await resolveInside(root, args.path ?? '.');
  const info = await stat(start.real);
  if (!info.isDirectory())
    throw new Error(`${start.display} is a file, not a folder; read it with files_read.`);
  const maxEntries = args.max_entries ?? 500;
  const maxDepth = args.recursive === true ? (args.max_depth ?? 5) : 1;
  const entries = [];
  let truncated = false;
  const walk = async (dir, depth) => {
    let names;
    try {
      names = await readdir(dir, { withFileTypes: true });
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
      const full = path.join(dir, entry.name);
      const stats = await lstat(full).catch(() => undefined);
      if (stats === undefined) continue;
      const type = stats.isSymbolicLink()
        ? 'symlink'
        : stats.isDirectory()
          ? 'folder'
          : stats.isFile()
            ? 'file'
            : 'other';
      entries.push({
        path: toDisplay(root, full),
        type,
        ...(type === 'file' ? { size: stats.size } : {}),
        modified: stats.mtime.toISOString(),
      });
      // Links are listed, never followed: following one could walk out of the project.
      if (type === 'folder' && depth < maxDepth && !SKIPPED_DIRS.has(entry.name))
        await walk(full, depth + 1);
    }
  };
  await walk(start.real, 1);
  return { path: start.display, entries, truncated };
}

async function readTextFile(args, context) {
  const root = await getRoot(context);
  const target = await resolveInside(root, args.path);
  const info = await stat(target.real);
  if (info.isDirectory())
    throw new Error(`${target.display} is a folder; list it with files_list.`);
  if (!info.isFile()) throw new Error(`${target.display} is not a regular file.`);
  if (isSecret(path.basename(target.real)))
    throw new Error(
      `${target.display} looks like a secret (keys, .env); it is not read. Set FILES_ALLOW_SECRETS=1 to allow it.`,
    );
  const maxBytes = args.max_bytes ?? 262144;
  const handle = await open(target.real, 'r');
  let buffer;
  try {
    buffer = Buffer.alloc(Math.min(maxBytes, info.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    buffer = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (isBinary(buffer))
    throw new Error(
      `${target.display} is a binary file (${info.size} bytes); only text files are read.`,
    );
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
    path: target.display,
    size: info.size,
    startLine,
    endLine,
    content: selected.join('\n'),
    truncated: bytesTruncated || startLine - 1 + maxLines < lines.length,
  };
}

async function searchFiles(args, context) {
  const root = await getRoot(context);
  const start = await resolveInside(root, args.path ?? '.');
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
  const searchFile = async (file) => {
    const name = path.basename(file);
    if ((nameFilter !== undefined && !nameFilter.test(name)) || isSecret(name)) return;
    const stats = await lstat(file).catch(() => undefined);
    if (stats === undefined || !stats.isFile() || stats.size > SEARCH_FILE_LIMIT) return;
    const bytes = await readFileBytes(file);
    if (bytes === undefined || isBinary(bytes)) return;
    filesSearched += 1;
    const lines = bytes.toString('utf8').split(/\r?\n/);
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index].slice(0, LINE_LIMIT);
      if (!matcher.test(line)) continue;
      if (matches.length >= maxResults) {
        truncated = true;
        return;
      }
      matches.push({ path: toDisplay(root, file), line: index + 1, text: line.trim() });
    }
  };
  const walk = async (dir) => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (truncated || context?.signal?.aborted) return;
      if (args.include_hidden !== true && entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(full);
      } else if (entry.isFile()) {
        await searchFile(full);
      }
    }
  };
  const info = await stat(start.real);
  if (info.isDirectory()) await walk(start.real);
  else await searchFile(start.real);
  return { pattern: args.pattern, filesSearched, matches, truncated };
}

async function readFileBytes(file) {
  try {
    const handle = await open(file, 'r');
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
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
