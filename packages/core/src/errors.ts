import type { ToolpackErrorCode } from './error-codes.ts';

export interface ToolpackErrorOptions {
  /** One sentence telling the user how to fix the problem. */
  hint?: string;
  cause?: unknown;
  /** Where the problem is, when it is in a user's file. */
  path?: string;
  line?: number;
}

/**
 * The one error type every Toolpack library throws. `code` is stable and machine-readable, one of
 * the catalogue in `error-codes.ts`; only the CLI turns errors into exit codes and text.
 */
export class ToolpackError extends Error {
  readonly code: ToolpackErrorCode;
  readonly hint: string | undefined;
  readonly path: string | undefined;
  readonly line: number | undefined;

  constructor(code: ToolpackErrorCode, message: string, options: ToolpackErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolpackError';
    this.code = code;
    this.hint = options.hint;
    this.path = options.path;
    this.line = options.line;
  }

  /** `path:line: message` when the error points into a file, else the message. */
  get location(): string | undefined {
    if (this.path === undefined) return undefined;
    return this.line === undefined ? this.path : `${this.path}:${this.line}`;
  }
}

/** True for a ToolpackError, also one thrown by another copy of this package. */
export function isToolpackError(value: unknown): value is ToolpackError {
  return (
    value instanceof ToolpackError ||
    (value instanceof Error &&
      value.name === 'ToolpackError' &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}
