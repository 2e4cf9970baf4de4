import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';

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

/**
 * Appends one JSON line per call to `file` (created with its folder when missing). Writes
 * are buffered by the stream; a failing disk never fails a call, it is reported once
 * through `onError`.
 */
export function createAuditLog(file: string, onError?: (error: Error) => void): AuditLog {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const stream: WriteStream = createWriteStream(file, { flags: 'a', encoding: 'utf8' });
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
