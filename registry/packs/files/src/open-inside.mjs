/* global process */
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
// Elsewhere (macOS, Windows: no /proc) the descriptor is compared with the resolved path's
// device and inode, which narrows the race but does not close it.
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const HAS_PROC_FD = process.platform === 'linux';
// Non-blocking so a FIFO swapped in cannot hang the open; no controlling terminal from a tty.
const BASE_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const FOLDER_FLAGS = BASE_FLAGS | (constants.O_DIRECTORY ?? 0);

/** Thrown when a path is refused; the message says why and how to get on. */
export class JailError extends Error {
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
 * inside `root`. Returns the open handle, its real path, the path relative to the root and its
 * fstat; the caller closes the handle. `noFollow` refuses a link as the last component (a walk
 * uses it: it descends only into what readdir called a folder).
 */
export async function openInside(root, target, { label, folder = false, noFollow = false }) {
  const flags = (folder ? FOLDER_FLAGS : BASE_FLAGS) | (noFollow ? (constants.O_NOFOLLOW ?? 0) : 0);
  let handle;
  try {
    handle = await open(target, flags);
  } catch (error) {
    throw describeOpenError(label, error, folder);
  }
  try {
    const real = await findRealPath(handle, target);
    if (!isWithin(root, real))
      throw new JailError(`${label} leads outside the project root through a symbolic link.`);
    const stats = await handle.stat();
    return { handle, real, display: toDisplay(root, real), stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The path that lists a folder opened by `openInside`: the very folder, not a new lookup. */
export function folderListingPath(opened) {
  return HAS_PROC_FD ? `/proc/self/fd/${opened.handle.fd}` : opened.real;
}

/** The path of `name` inside a folder opened by `openInside`, resolved from that folder. */
export function childPath(opened, name) {
  return path.join(folderListingPath(opened), name);
}

async function findRealPath(handle, target) {
  if (HAS_PROC_FD) {
    const real = await readlink(`/proc/self/fd/${handle.fd}`);
    // A file deleted since it was opened reads as "<path> (deleted)"; where it was is enough.
    return real.endsWith(' (deleted)') ? real.slice(0, -' (deleted)'.length) : real;
  }
  const real = await realpath(target);
  const [opened, named] = await Promise.all([handle.stat(), stat(real)]);
  if (opened.dev !== named.dev || opened.ino !== named.ino)
    throw new JailError(`${target} changed while it was opened; try again.`);
  return real;
}

function describeOpenError(label, error, folder) {
  switch (error.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return folder && error.code === 'ENOTDIR'
        ? new JailError(`${label} is a file, not a folder; read it with files_read.`, {
            cause: error,
          })
        : new JailError(`${label} does not exist.`, { cause: error });
    case 'ELOOP':
      return new JailError(`${label} is a symbolic link; it is not followed here.`, {
        cause: error,
      });
    case 'EISDIR':
      return new JailError(`${label} is a folder; list it with files_list.`, { cause: error });
    default:
      return new JailError(`${label} cannot be opened: ${error.code ?? error.message}.`, {
        cause: error,
      });
  }
}

export function isWithin(root, target) {
  const relative = path.relative(root, target);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

export function toDisplay(root, target) {
  return path.relative(root, target).split(path.sep).join('/') || '.';
}

/** lstat of `name` inside an opened folder, undefined when it vanished. */
export function lstatChild(opened, name) {
  return lstat(childPath(opened, name)).catch(() => undefined);
}
