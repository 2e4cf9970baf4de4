import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import {
  NAME_CHARACTERS_RULE,
  describeNameCharacters,
  escapeFileName,
} from './file-name-characters.ts';

/**
 * The path rules every pack archive (a pack's .tgz, a NuGet .nupkg) is held to, so that what
 * is written lands inside the pack folder under the name it shows, on every system.
 */

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** The path relative to the pack root, or why the entry's path is refused. */
export function checkEntryPath(
  entryPath: string,
  options: { isDirectory: boolean; prefix: string },
): string | { problem: string } {
  const { isDirectory, prefix } = options;
  if (entryPath.includes('\0')) return { problem: 'contains a NUL character' };
  if (entryPath.includes('\\')) return { problem: 'contains "\\" (a Windows path separator)' };
  if (entryPath.startsWith('/') || /^[A-Za-z]:/.test(entryPath))
    return { problem: 'is an absolute path' };
  const withSlash = isDirectory && !entryPath.endsWith('/') ? `${entryPath}/` : entryPath;
  if (!withSlash.startsWith(prefix)) return { problem: `is not under ${prefix}` };
  const segments = withSlash.slice(prefix.length).split('/');
  if (segments.at(-1) === '') segments.pop();
  const kept: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { problem: 'climbs out of the pack with ".."' };
    if ([...segment].some((char) => char.charCodeAt(0) < 0x20) || /[<>:"|?*]/.test(segment))
      return { problem: 'has a character that is not allowed in file names (control, <>:"|?*)' };
    if (/[. ]$/.test(segment)) return { problem: 'has a name ending in "." or a space' };
    if (WINDOWS_RESERVED.test(segment))
      return { problem: 'uses a reserved device name (CON, NUL, COM1 ...)' };
    if (Buffer.byteLength(segment) > 255) return { problem: 'has a name longer than 255 bytes' };
    kept.push(segment);
  }
  if (kept.length > 32) return { problem: 'is nested more than 32 folders deep' };
  if (!isDirectory && kept.length === 0) return { problem: 'names no file' };
  return kept.join('/');
}

export type ReportProblem = (code: Diagnostic['code'], message: string, entry?: string) => void;

/** Where an archive's problems gather, each naming the archive (`label`) and the entry. */
export function collectProblems(label: string): {
  problems: Diagnostic[];
  fail: ReportProblem;
} {
  const problems: Diagnostic[] = [];
  const fail: ReportProblem = (code, message, entry) => {
    problems.push(
      createDiagnostic('error', code, message, {
        path: entry === undefined ? label : `${label}:${entry}`,
      }),
    );
  };
  return { problems, fail };
}

/**
 * An entry's name held to the rules of every pack archive: no character that means another
 * on Windows or looks like another name, a safe relative path (`checkEntryPath`), and unique
 * ignoring case and Unicode normalisation (macOS folds both, Windows case), recorded in
 * `seen` (folded name to the name, a folder's with `/`) for `findPrefixConflicts`. The path
 * relative to the pack root, or undefined when the name was refused; a clash is reported and
 * the path still given, so every clash is listed.
 */
export function checkEntryName(
  name: string,
  options: { isDirectory: boolean; prefix: string; seen: Map<string, string>; fail: ReportProblem },
): string | undefined {
  const { isDirectory, seen, fail } = options;
  const deceptive = describeNameCharacters(name);
  if (deceptive !== undefined) {
    const shown = escapeFileName(name);
    fail('E_TARBALL_PATH_CHARACTER', `${shown} ${deceptive}: ${NAME_CHARACTERS_RULE}`, shown);
    return undefined;
  }
  const relative = checkEntryPath(name, { isDirectory, prefix: options.prefix });
  if (typeof relative !== 'string') {
    fail('E_TARBALL_PATH', `${JSON.stringify(name)} ${relative.problem}.`, name);
    return undefined;
  }
  if (relative === '') return relative;
  const key = relative.normalize('NFC').toLowerCase();
  const earlier = seen.get(key);
  if (earlier !== undefined) {
    const sameCase = relative.toLowerCase() === earlier.replace(/\/$/, '').toLowerCase();
    fail(
      'E_TARBALL_DUPLICATE',
      earlier === relative || earlier === `${relative}/`
        ? `${relative} appears twice.`
        : `${relative} and ${earlier} differ only in ${sameCase ? 'case' : 'Unicode normalisation (composed or decomposed letters)'}; they would overwrite each other on macOS${sameCase ? ' and Windows' : ''}.`,
      name,
    );
  }
  seen.set(key, isDirectory ? `${relative}/` : relative);
  return relative;
}

/** A file `a` and a file `a/b` cannot both be written. */
export function findPrefixConflicts(seen: Map<string, string>, fail: ReportProblem): void {
  const folders = new Map<string, string>();
  for (const [key, original] of seen) {
    const parts = key.split('/');
    for (let i = 1; i < parts.length; i += 1) folders.set(parts.slice(0, i).join('/'), original);
  }
  for (const [key, original] of seen) {
    const inside = folders.get(key);
    if (!original.endsWith('/') && inside !== undefined)
      fail(
        'E_TARBALL_DUPLICATE',
        `${original} is a file and also the folder of ${inside}.`,
        original,
      );
  }
}
