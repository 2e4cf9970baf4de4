import { gunzipSync } from 'node:zlib';
import type { ReadEntry } from 'tar';
import { loadTar } from '../lazy-dependencies.ts';
import { ToolpackError, type Diagnostic } from '@toolpack/core';
import { checkEntryName, collectProblems, findPrefixConflicts } from './archive-paths.ts';
import { formatBytes, resolveLimits, type PackLimits } from './limits.ts';

/** One file of a pack, read into memory and checked, not yet written anywhere. */
export interface TarballFile {
  /** Relative to the pack root (without `package/`), `/`-separated, checked safe. */
  path: string;
  data: Buffer;
}

export interface InspectTarballOptions {
  limits?: Partial<PackLimits>;
  /** Names the tarball in messages (`jira@1.2.0`). */
  label?: string;
}

export interface TarballInspection {
  /** Undefined when any problem was found: nothing of a bad tarball is handed on. */
  files: TarballFile[] | undefined;
  /** Every problem found, not just the first (a registry reports them all at once). */
  problems: Diagnostic[];
}

const ENTRY_PREFIX = 'package/';
/** The ratio cap applies above this much output: a tiny pack may compress very well. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Reads a pack `.tgz` entirely in memory and checks it before anything is written: gzip
 * only, caps on the compressed size, on the decompression ratio, on entries, on each file
 * and on the total; regular files and folders only (no symbolic or hard links, devices,
 * FIFOs); every path under `package/`, relative, without `..`, without characters that mean
 * something else on Windows or look like another name (bidirectional controls, invisible
 * characters), and unique (ignoring case and Unicode normalisation, as macOS does).
 */
export function inspectTarball(
  bytes: Uint8Array,
  options: InspectTarballOptions = {},
): TarballInspection {
  const limits = resolveLimits(options.limits);
  const label = options.label ?? 'The tarball';
  const { problems, fail } = collectProblems(label);
  const stop = (code: Diagnostic['code'], message: string): TarballInspection => {
    fail(code, message);
    return { files: undefined, problems };
  };

  if (bytes.length > limits.maxTarballBytes) {
    return stop(
      'E_TARBALL_TOO_LARGE',
      `${label} is ${formatBytes(bytes.length)}; the limit is ${formatBytes(limits.maxTarballBytes)}.`,
    );
  }
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    return stop('E_TARBALL_FORMAT', `${label} is not a gzip-compressed tar (.tgz).`);
  }
  const sizeCap = limits.maxTotalBytes + (limits.maxEntries + 2) * 1024;
  const ratioCap = Math.max(RATIO_FLOOR_BYTES, Math.floor(limits.maxRatio * bytes.length));
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: Math.min(sizeCap, ratioCap) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      return ratioCap < sizeCap
        ? stop(
            'E_TARBALL_RATIO',
            `${label} decompresses to more than ${limits.maxRatio} times its size (a decompression bomb?); it was not unpacked.`,
          )
        : stop(
            'E_TARBALL_TOO_LARGE',
            `${label} unpacks to more than ${formatBytes(limits.maxTotalBytes)}; it was not unpacked.`,
          );
    }
    return stop('E_TARBALL_FORMAT', `${label} is not valid gzip: ${(error as Error).message}.`);
  }
  // The parser would inflate a second layer on its own, past the caps checked above.
  if ((tar[0] === 0x1f && tar[1] === 0x8b) || (tar[0] === 0x28 && tar[1] === 0xb5)) {
    return stop(
      'E_TARBALL_FORMAT',
      `${label} is compressed twice; a pack is one gzip layer over a tar.`,
    );
  }

  const files: TarballFile[] = [];
  const seen = new Map<string, string>();
  let entries = 0;
  let total = 0;
  let stopped = false;
  const parser = new (loadTar().Parser)({
    brotli: false,
    zstd: false,
    maxMetaEntrySize: 64 * 1024,
    onwarn: (_code: string, message: string | Error) => {
      fail(
        'E_TARBALL_FORMAT',
        `${label} is a damaged tar: ${String(message instanceof Error ? message.message : message)}.`,
      );
    },
  });
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    fail('E_TARBALL_FORMAT', `${label} has an oversized ${entry.type} header.`, entry.path);
  });
  parser.on('entry', (entry: ReadEntry) => {
    if (stopped) {
      entry.resume();
      return;
    }
    entries += 1;
    if (entries > limits.maxEntries) {
      fail('E_TARBALL_TOO_MANY_ENTRIES', `${label} has more than ${limits.maxEntries} entries.`);
      stopped = true;
      entry.resume();
      return;
    }
    const entryPath = entry.path;
    const type = entry.type;
    if (!FILE_TYPES.has(type) && type !== 'Directory') {
      const what =
        type === 'SymbolicLink'
          ? `a symbolic link (to ${JSON.stringify(entry.linkpath ?? '')})`
          : type === 'Link'
            ? `a hard link (to ${JSON.stringify(entry.linkpath ?? '')})`
            : type === 'CharacterDevice' || type === 'BlockDevice'
              ? 'a device file'
              : type === 'FIFO'
                ? 'a FIFO'
                : `an entry of type ${type}`;
      fail(
        'E_TARBALL_ENTRY_TYPE',
        `${entryPath} is ${what}; packs hold only files and folders.`,
        entryPath,
      );
      entry.resume();
      return;
    }
    const relative = checkEntryName(entryPath, {
      isDirectory: type === 'Directory',
      prefix: ENTRY_PREFIX,
      seen,
      fail,
    });
    if (relative === undefined) {
      entry.resume();
      return;
    }
    if (type === 'Directory') {
      entry.resume();
      return;
    }
    if (entry.size > limits.maxFileBytes) {
      fail(
        'E_TARBALL_FILE_TOO_LARGE',
        `${relative} is ${formatBytes(entry.size)}; one file may be at most ${formatBytes(limits.maxFileBytes)}.`,
        entryPath,
      );
      entry.resume();
      return;
    }
    total += entry.size;
    if (total > limits.maxTotalBytes) {
      fail(
        'E_TARBALL_TOO_LARGE',
        `${label} unpacks to more than ${formatBytes(limits.maxTotalBytes)}.`,
      );
      stopped = true;
      entry.resume();
      return;
    }
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', () => files.push({ path: relative, data: Buffer.concat(chunks) }));
  });
  try {
    parser.end(tar);
  } catch (error) {
    fail('E_TARBALL_FORMAT', `${label} is a damaged tar: ${(error as Error).message}.`);
  }
  if (entries === 0 && problems.length === 0) fail('E_TARBALL_EMPTY', `${label} holds no files.`);
  findPrefixConflicts(seen, fail);
  return problems.length > 0 ? { files: undefined, problems } : { files, problems };
}

/** `inspectTarball`, throwing `E_TARBALL_UNSAFE` with every problem when there is one. */
export function readPackTarball(
  bytes: Uint8Array,
  options: InspectTarballOptions = {},
): TarballFile[] {
  const { files, problems } = inspectTarball(bytes, options);
  if (files === undefined) {
    const label = options.label ?? 'The tarball';
    const list = problems.map((p) => `  - ${p.message}`).join('\n');
    throw new ToolpackError(
      'E_TARBALL_UNSAFE',
      `${label} was refused and nothing was installed:\n${list}`,
      { hint: 'Tell the pack author or the registry owner; do not unpack it by hand.' },
    );
  }
  return files;
}
