import {
  closeSync,
  constants,
  createWriteStream,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  type WriteStream,
} from 'node:fs';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';

export type CallOutcome = 'ok' | 'error' | 'denied' | 'unknown_tool' | 'cancelled';

/** One audit line. Argument values are never recorded: they may hold secrets. */
export interface AuditEntry {
  time: string;
  tool: string;
  /** At most `MAX_AUDITED_KEYS` names, each clipped to `MAX_AUDITED_KEY_CHARS`. */
  argumentKeys: string[];
  /** How many argument keys the call had beyond those listed; absent when none. */
  moreArgumentKeys?: number;
  outcome: CallOutcome;
  ms: number;
}

/**
 * Keys are the client's to choose, in number and length: an audit line must not grow with
 * them (11.6 MB of keys once made 3.2 MB lines).
 */
export const MAX_AUDITED_KEYS = 50;
export const MAX_AUDITED_KEY_CHARS = 100;

export interface AuditLog {
  record(entry: AuditEntry): void;
  close(): Promise<void>;
}

/**
 * The first `MAX_AUDITED_KEYS` keys of a call's arguments (clipped, sorted) and how many
 * more there were; anything but a plain object has none.
 */
export function summarizeArgumentKeys(
  args: unknown,
): Pick<AuditEntry, 'argumentKeys' | 'moreArgumentKeys'> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { argumentKeys: [] };
  const argumentKeys: string[] = [];
  let more = 0;
  for (const key in args) {
    if (!Object.hasOwn(args, key)) continue;
    if (argumentKeys.length < MAX_AUDITED_KEYS)
      argumentKeys.push(
        key.length > MAX_AUDITED_KEY_CHARS ? `${key.slice(0, MAX_AUDITED_KEY_CHARS)}…` : key,
      );
    else more += 1;
  }
  argumentKeys.sort();
  return more > 0 ? { argumentKeys, moreArgumentKeys: more } : { argumentKeys };
}

function refuseAuditFile(file: string, why: string): ToolpackError {
  return new ToolpackError(
    'E_AUDIT_FILE',
    `Refusing to write the audit log to ${file}: it ${why}. Whatever can write its folder (a pack granted it) could have put it there to have the server write into another file.`,
    {
      hint: 'Look at what it is and remove it, or pass --audit a file in .toolpack/, which no pack may write.',
    },
  );
}

/**
 * Opens `file` to append, refusing what a pack that may write its folder could have planted
 * there for the server to follow or to lose its log: a symbolic link (the server would append
 * to its target), a FIFO (opening it would block), a folder or anything else that is not a
 * regular file, or a hard link.
 * Other failures (a read-only disk) are the caller's to report.
 */
function openAuditFile(file: string): number {
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
  // Without O_NOFOLLOW (Windows) a link is refused by looking first.
  if (O_NOFOLLOW === 0 && lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink())
    throw refuseAuditFile(file, 'is a symbolic link');
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuseAuditFile(file, 'is a symbolic link');
    // A FIFO nobody reads (O_NONBLOCK makes the open fail instead of wait), or a folder: the
    // server would run without its audit log.
    if (code === 'ENXIO' || code === 'EISDIR') throw refuseAuditFile(file, 'is not a regular file');
    throw error;
  }
  const stats = fstatSync(fd);
  if (stats.isFile() && stats.nlink === 1) return fd;
  closeSync(fd);
  throw refuseAuditFile(file, stats.isFile() ? 'has other hard links' : 'is not a regular file');
}

/**
 * Appends one JSON line per call to `file` (created with its folder when missing). Writes
 * are buffered by the stream; a failing disk never fails a call, it is reported once
 * through `onError`. Throws `E_AUDIT_FILE` for a file it must not follow (`openAuditFile`).
 */
export function createAuditLog(file: string, onError?: (error: Error) => void): AuditLog {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  let fd: number | undefined;
  try {
    fd = openAuditFile(file);
  } catch (error) {
    if (error instanceof ToolpackError) throw error;
    onError?.(error instanceof Error ? error : new Error(String(error)));
  }
  if (fd === undefined) return { record: () => undefined, close: () => Promise.resolve() };
  const stream: WriteStream = createWriteStream(file, { fd, encoding: 'utf8' });
  let failed = false;
  stream.on('error', (error) => {
    if (!failed) onError?.(error);
    failed = true;
  });
  return {
    record(entry) {
      if (failed) return;
      const line: AuditEntry = {
        time: entry.time,
        tool: entry.tool,
        argumentKeys: entry.argumentKeys,
        ...(entry.moreArgumentKeys === undefined
          ? {}
          : { moreArgumentKeys: entry.moreArgumentKeys }),
        outcome: entry.outcome,
        ms: entry.ms,
      };
      stream.write(`${JSON.stringify(line)}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (stream.closed || stream.destroyed) {
          resolve();
          return;
        }
        stream.end(() => resolve());
      }),
  };
}
