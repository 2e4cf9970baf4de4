import { ToolpackError, type ToolpackErrorCode } from '@toolpack/core';

/** One problem a registry reported (a `422` lists every one). */
export interface RegistryProblem {
  message: string;
  path?: string;
  line?: number;
  code?: string;
}

/** A registry answered with an error status; `problems` holds what its body listed. */
export class RegistryError extends ToolpackError {
  readonly status: number;
  readonly problems: RegistryProblem[];

  constructor(
    code: ToolpackErrorCode,
    message: string,
    details: { status: number; problems?: RegistryProblem[]; hint?: string },
  ) {
    super(code, message, details.hint === undefined ? {} : { hint: details.hint });
    this.status = details.status;
    this.problems = details.problems ?? [];
  }
}

/**
 * Reads an error body: `{ "error": { "code", "message", "hint"? }, "problems": [{ "message",
 * "path"?, "line"?, "code"? }] }` (what apps/registry and the test registry send), also
 * `{ "error": "..." }`, or any text.
 */
export function readErrorBody(text: string): {
  message?: string;
  hint?: string;
  problems: RegistryProblem[];
} {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const trimmed = text.trim().slice(0, 300);
    return trimmed === '' ? { problems: [] } : { message: trimmed, problems: [] };
  }
  if (typeof body !== 'object' || body === null) return { problems: [] };
  const record = body as Record<string, unknown>;
  const errorField = record.error;
  const message =
    typeof errorField === 'string'
      ? errorField
      : typeof (errorField as { message?: unknown } | undefined)?.message === 'string'
        ? (errorField as { message: string }).message
        : typeof record.message === 'string'
          ? record.message
          : undefined;
  const hintField = (errorField as { hint?: unknown } | undefined)?.hint ?? record.hint;
  const hint = typeof hintField === 'string' ? hintField : undefined;
  const rawProblems = Array.isArray(record.problems) ? record.problems : [];
  const problems = rawProblems.flatMap((problem): RegistryProblem[] => {
    if (typeof problem === 'string') return [{ message: problem }];
    if (typeof problem !== 'object' || problem === null) return [];
    const p = problem as Record<string, unknown>;
    if (typeof p.message !== 'string') return [];
    return [
      {
        message: p.message,
        ...(typeof p.path === 'string' ? { path: p.path } : {}),
        ...(typeof p.line === 'number' ? { line: p.line } : {}),
        ...(typeof p.code === 'string' ? { code: p.code } : {}),
      },
    ];
  });
  return {
    ...(message === undefined ? {} : { message }),
    ...(hint === undefined ? {} : { hint }),
    problems,
  };
}
