import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';

export type CallOutcome = 'ok' | 'error' | 'denied' | 'unknown_tool' | 'cancelled';

/** One audit line. Argument values are never recorded: they may hold secrets. */
export interface AuditEntry {
  time: string;
  tool: string;
  argumentKeys: string[];
  outcome: CallOutcome;
  ms: number;
}

export interface AuditLog {
  record(entry: AuditEntry): void;
  close(): Promise<void>;
}

/** The keys of a call's arguments, sorted; anything but a plain object has none. */
export function listArgumentKeys(args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  return Object.keys(args).sort();
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
