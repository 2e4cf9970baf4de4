import { isToolpackError } from '@toolpack/core';

/**
 * Why a tool's question got no answer, as one line the tool receives (thrown in PowerShell,
 * an `error` answer line for scripts): the code first, then how to fix it.
 */
export function describeQuestionFailure(error: unknown): string {
  if (isToolpackError(error)) {
    return `${error.code} ${error.message}${error.hint === undefined ? '' : ` ${error.hint}`}`;
  }
  return error instanceof Error ? error.message : String(error);
}
