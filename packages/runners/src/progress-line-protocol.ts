import type { ToolProgress } from './runner-types.ts';

/**
 * The progress line protocol for script tools (bash, Python, JS/TS scripts, BASIC, any
 * configured interpreter): a line on stderr, on its own, in one of these forms
 *
 *   ::progress 40/100 Copying files     40 of 100 (total 100), with a message
 *   ::progress 40% Copying files        a percentage: 40 of 100
 *   ::progress 40 Copying files         a bare counter, no total
 *
 * Grammar: `::progress` SP value [SP message], value = number ["/" number | "%"], number =
 * digits ["." digits]. A percentage is at most 100; a total is above 0 and not below the
 * value. The whole line is at most MAX_PROGRESS_LINE_BYTES bytes. Docs: docs/param-headers.md.
 */
export const PROGRESS_LINE_PREFIX = '::progress';
export const MAX_PROGRESS_LINE_BYTES = 1024;

/**
 * The question line, for the same tools: the tool asks its user and reads the answer, one
 * line, from file descriptor 3 (docs/param-headers.md):
 *
 *   ::ask confirm Delete 3 files?              answered `accept`, `decline` or `cancel`
 *   ::ask text Which branch?                   `accept <text>` (one line), `decline`, `cancel`
 *   ::ask choice Which colour?|red|green       `accept <choice>`, `decline`, `cancel`
 *
 * Or `error <why>` when nobody can answer (a client without elicitation). Never for secrets.
 */
export const ASK_LINE_PREFIX = '::ask';
export const MAX_ASK_LINE_BYTES = 4096;

export interface AskLine {
  kind: 'confirm' | 'text' | 'choice';
  message: string;
  /** A choice question's options, in order; empty for the others. */
  choices: string[];
}

const ASK_LINE = /^::ask (confirm|text|choice) (.+)$/su;

/** Reads one `::ask` line (without its line break); undefined when it breaks the grammar. */
export function parseAskLine(line: string): AskLine | undefined {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (Buffer.byteLength(text) > MAX_ASK_LINE_BYTES) return undefined;
  const match = ASK_LINE.exec(text);
  if (match === null) return undefined;
  const kind = match[1] as AskLine['kind'];
  const rest = (match[2] ?? '').trim();
  if (kind !== 'choice') return rest === '' ? undefined : { kind, message: rest, choices: [] };
  const [message = '', ...options] = rest.split('|').map((part) => part.trim());
  const choices = options.filter((choice) => choice !== '');
  if (message === '' || choices.length === 0 || new Set(choices).size !== choices.length)
    return undefined;
  return { kind, message, choices };
}

const PROGRESS_LINE =
  /^::progress (\d{1,15}(?:\.\d{1,15})?)(?:(%)|\/(\d{1,15}(?:\.\d{1,15})?))?(?: (.*))?$/su;

export type ProgressLine =
  | { kind: 'other' }
  | { kind: 'progress'; progress: ToolProgress }
  /** Starts like a progress line but does not follow the grammar. */
  | { kind: 'malformed' };

/** Classifies one stderr line (without its line break). */
export function parseProgressLine(line: string): ProgressLine {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text !== PROGRESS_LINE_PREFIX && !text.startsWith(`${PROGRESS_LINE_PREFIX} `)) {
    return { kind: 'other' };
  }
  if (Buffer.byteLength(text) > MAX_PROGRESS_LINE_BYTES) return { kind: 'malformed' };
  const match = PROGRESS_LINE.exec(text);
  if (match === null) return { kind: 'malformed' };
  const [, value = '', percent, totalText, messageText] = match;
  const progress = Number(value);
  let total: number | undefined;
  if (percent !== undefined) {
    if (progress > 100) return { kind: 'malformed' };
    total = 100;
  } else if (totalText !== undefined) {
    total = Number(totalText);
    if (total <= 0 || progress > total) return { kind: 'malformed' };
  }
  const message = messageText?.trim();
  return {
    kind: 'progress',
    progress: {
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined || message === '' ? {} : { message }),
    },
  };
}

export interface ProgressLineFilter {
  /** Takes a chunk of stderr; returns its ordinary bytes, progress lines taken out. */
  push(chunk: Buffer): Buffer;
  /** The stream ended: the last line, if it had no line break, is classified now. */
  end(): Buffer;
}

export interface ProgressLineHandlers {
  onProgress(progress: ToolProgress): void;
  /** A well-formed `::ask` line; without this handler such lines stay in stderr. */
  onAsk?(question: AskLine): void;
  /** A line that starts with `::progress ` (or `::ask `) but breaks the grammar; it stays in stderr. */
  onMalformed(line: string): void;
}

const PREFIX_BYTES = Buffer.from(`${PROGRESS_LINE_PREFIX} `);
const ASK_PREFIX_BYTES = Buffer.from(`${ASK_LINE_PREFIX} `);
const NEWLINE = 0x0a;

/**
 * Splits stderr into lines as it streams, without holding more than one short line: a line
 * is held back only while it can still become a progress line (it starts like one and is
 * within the length bound); any other line passes through at once, whole or in pieces.
 */
export function createProgressLineFilter(handlers: ProgressLineHandlers): ProgressLineFilter {
  let held: Buffer = Buffer.alloc(0);
  // Inside an ordinary line (or an over-long one) that was already let through.
  let passing = false;

  const asking = handlers.onAsk !== undefined;
  const startsWith = (candidate: Buffer, prefix: Buffer): boolean => {
    const shared = Math.min(candidate.length, prefix.length);
    return candidate.subarray(0, shared).equals(prefix.subarray(0, shared));
  };

  const classify = (line: Buffer, out: Buffer[]): void => {
    const body = line.at(-1) === NEWLINE ? line.subarray(0, -1) : line;
    if (asking && body.length >= ASK_PREFIX_BYTES.length && startsWith(body, ASK_PREFIX_BYTES)) {
      const question = parseAskLine(body.toString('utf8'));
      if (question !== undefined) {
        handlers.onAsk?.(question);
        return;
      }
      handlers.onMalformed(body.toString('utf8'));
      out.push(line);
      return;
    }
    const parsed = parseProgressLine(body.toString('utf8'));
    if (parsed.kind === 'progress') {
      handlers.onProgress(parsed.progress);
      return;
    }
    if (parsed.kind === 'malformed') handlers.onMalformed(body.toString('utf8'));
    out.push(line);
  };

  const couldBeProgress = (candidate: Buffer): boolean =>
    (candidate.length <= MAX_PROGRESS_LINE_BYTES + 1 && startsWith(candidate, PREFIX_BYTES)) ||
    (asking &&
      candidate.length <= MAX_ASK_LINE_BYTES + 1 &&
      startsWith(candidate, ASK_PREFIX_BYTES));

  return {
    push(chunk) {
      const out: Buffer[] = [];
      let position = 0;
      while (position < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, position);
        const end = newline === -1 ? chunk.length : newline + 1;
        const piece = chunk.subarray(position, end);
        position = end;
        if (passing) {
          out.push(piece);
          if (newline !== -1) passing = false;
          continue;
        }
        const candidate = held.length === 0 ? piece : Buffer.concat([held, piece]);
        held = Buffer.alloc(0);
        if (newline !== -1) {
          classify(candidate, out);
        } else if (couldBeProgress(candidate)) {
          held = Buffer.from(candidate);
        } else {
          if (candidate.subarray(0, PREFIX_BYTES.length).equals(PREFIX_BYTES)) {
            handlers.onMalformed(
              `${candidate.subarray(0, 80).toString('utf8')}… (longer than ${MAX_PROGRESS_LINE_BYTES} bytes)`,
            );
          }
          out.push(candidate);
          passing = true;
        }
      }
      return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
    },
    end() {
      const out: Buffer[] = [];
      if (held.length > 0) classify(held, out);
      held = Buffer.alloc(0);
      passing = false;
      return Buffer.concat(out);
    },
  };
}
