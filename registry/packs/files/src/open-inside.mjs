/* global process, Buffer */
// Opens files and folders of the project so that what was opened is provably inside it.
//
// Checking a path and then opening it races: between the two, a folder on the path can be
// swapped for a symbolic link to anywhere. So the order is reversed: open first, then ask the
// kernel where the descriptor that was opened really lives (/proc/self/fd/<fd> on Linux) and
// refuse it when that is outside the root. A descriptor names one file for good, so nothing
// done to the path after the open can change what is read. A check by path (realpath, or an
// lstat walk comparing device and inode with fstat) would not close the race: every lstat
// resolves the path from the start again, so a folder swapped back and forth between two of
// them fools it. Node has no openat() to walk by descriptors, which would be the other cure.
//
// On Linux the first open is an O_PATH one: it touches nothing (a device is not opened, a
// FIFO does not block), and only a regular file that passed the checks is opened for reading,
// through /proc/self/fd/<fd>, which reaches that same file and never looks its name up again.
//
// Elsewhere (macOS, Windows: no /proc) the path is resolved and checked, then the file opened
// and compared with it (device and inode), which narrows the race but does not close it.
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const HAS_PROC_FD = process.platform === 'linux';
// Linux's O_PATH, the same on every architecture Node ships for (Node does not export it).
const O_PATH = HAS_PROC_FD ? 0o10000000 : 0;
// Non-blocking so a FIFO cannot hang an open; no controlling terminal from a tty.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Thrown when a path is refused; the message says why and how to get on. */
class JailError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'JailError';
  }
}

/**
 * Checks `relative` as text: no NUL, not absolute, no `..` out of `root`. Returns the path it
 * names (not yet resolved through links).
 */
export function joinInside(root, relative) {
  if (typeof relative !== 'string' || relative.includes('\0'))
    throw new JailError('The path is not valid.');
  if (path.isAbsolute(relative) || /^[A-Za-z]:/.test(relative) || relative.startsWith('\\'))
    throw new JailError(
      `${relative} is an absolute path; give a path relative to the project root.`,
    );
  const lexical = path.resolve(root, relative);
  if (!isWithin(root, lexical)) throw new JailError(`${relative} is outside the project root.`);
  return lexical;
}

/**
 * Opens `target` (a file or a folder, following links) and proves the opened descriptor is
 * inside `root`. Returns the handle, its real path, the path relative to the root and its
 * fstat; the caller closes it with `closeOpened` and reads a file with `readOpenedFile`.
 * `noFollow` refuses a link as the last component (a walk uses it: it descends only into what
 * readdir called a folder).
 */
export async function openInside(root, target, { label, folder = false, noFollow = false }) {
  const opened = HAS_PROC_FD
    ? await openByDescriptor(root, target, { label, noFollow })
    : await openByPath(root, target, { label, noFollow });
  if (folder && !opened.stats.isDirectory()) {
    await closeOpened(opened);
    throw new JailError(`${label} is a file, not a folder; read it with files_read.`);
  }
  return opened;
}

export async function closeOpened(opened) {
  await opened.handle?.close();
}

async function openByDescriptor(root, target, { label, noFollow }) {
  let handle;
  try {
    handle = await open(target, O_PATH | (noFollow ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    throw describeOpenError(label, error);
  }
  try {
    let real;
    try {
      real = await readlink(`/proc/self/fd/${handle.fd}`);
    } catch (error) {
      throw new JailError(
        `${label} was not read: where it is cannot be checked without /proc (${error.code ?? error.message}).`,
        { cause: error },
      );
    }
    // A file deleted since it was opened reads as "<path> (deleted)"; where it was is enough.
    if (real.endsWith(' (deleted)')) real = real.slice(0, -' (deleted)'.length);
    if (!isWithin(root, real))
      throw new JailError(`${label} leads outside the project root through a symbolic link.`);
    const stats = await handle.stat();
    // O_PATH with O_NOFOLLOW opens a link itself rather than failing.
    if (stats.isSymbolicLink())
      throw new JailError(`${label} is a symbolic link; it is not followed here.`);
    return { handle, real, display: toDisplay(root, real), stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

// Without /proc: resolve, check, open, and compare what was opened with what was checked.
async function openByPath(root, target, { label, noFollow }) {
  let real;
  let stats;
  try {
    if (noFollow && (await lstat(target)).isSymbolicLink())
      throw new JailError(`${label} is a symbolic link; it is not followed here.`);
    real = await realpath(target);
    stats = await stat(real);
  } catch (error) {
    throw error instanceof JailError ? error : describeOpenError(label, error);
  }
  if (!isWithin(root, real))
    throw new JailError(`${label} leads outside the project root through a symbolic link.`);
  if (!stats.isFile()) return { handle: undefined, real, display: toDisplay(root, real), stats };
  const handle = await open(real, READ_FLAGS).catch((error) => {
    throw describeOpenError(label, error);
  });
  const opened = await handle.stat();
  if (opened.dev !== stats.dev || opened.ino !== stats.ino) {
    await handle.close();
    throw new JailError(`${label} changed while it was opened; try again.`);
  }
  return { handle, real, display: toDisplay(root, real), stats: opened };
}

/**
 * Reads up to `length` bytes from the start of a regular file opened by `openInside`. On
 * Linux it opens /proc/self/fd/<fd>: the very file checked, whatever its name points at now.
 */
export async function readOpenedFile(opened, length) {
  if (!opened.stats.isFile()) throw new JailError(`${opened.display} is not a regular file.`);
  const reader = HAS_PROC_FD
    ? await open(`/proc/self/fd/${opened.handle.fd}`, READ_FLAGS)
    : opened.handle;
  try {
    const again = await reader.stat();
    if (again.dev !== opened.stats.dev || again.ino !== opened.stats.ino)
      throw new JailError(`${opened.display} changed while it was opened; try again.`);
    const buffer = Buffer.alloc(Math.min(length, opened.stats.size));
    const { bytesRead } = await reader.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    if (reader !== opened.handle) await reader.close();
  }
}

/** The path that lists a folder opened by `openInside`: the very folder, not a new lookup. */
export function folderListingPath(opened) {
  return HAS_PROC_FD ? `/proc/self/fd/${opened.handle.fd}` : opened.real;
}

/** The path of `name` inside a folder opened by `openInside`, looked up from that folder. */
export function childPath(opened, name) {
  return path.join(folderListingPath(opened), name);
}

/** lstat of `name` inside an opened folder, undefined when it vanished. */
export function lstatChild(opened, name) {
  return lstat(childPath(opened, name)).catch(() => undefined);
}

function describeOpenError(label, error) {
  switch (error.code) {
    case 'ENOENT':
      return new JailError(`${label} does not exist.`, { cause: error });
    case 'ENOTDIR':
      return new JailError(`${label} does not exist: a folder on its path is a file.`, {
        cause: error,
      });
    case 'ELOOP':
      return new JailError(`${label} is a symbolic link; it is not followed here.`, {
        cause: error,
      });
    default:
      return new JailError(`${label} cannot be opened: ${error.code ?? error.message}.`, {
        cause: error,
      });
  }
}

function isWithin(root, target) {
  const relative = path.relative(root, target);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

export function toDisplay(root, target) {
  return path.relative(root, target).split(path.sep).join('/') || '.';
}
