import { validateArguments, type DiscoveredTool, type ToolCallResult } from '@toolpack/core';

export interface SmokeVerdict {
  status: 'passed' | 'failed' | 'skipped';
  reason?: string;
}

const textOf = (result: ToolCallResult): string =>
  result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
    .trim();

/** The first line, and the last when there are more (a runner's message, then stderr's tail). */
function summarize(text: string, max = 240): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const first = lines[0] ?? '';
  const last = lines.at(-1) ?? '';
  const joined = lines.length > 1 && last !== first ? `${first} ${last}` : first;
  return joined.length > max ? `${joined.slice(0, max - 1)}…` : joined;
}

/** What this machine lacks, by the messages @toolpack/runners words: a skip, not a failure. */
function findMissingRequirement(text: string): string | undefined {
  if (/PowerShell 7 \(pwsh\) is not installed or not on PATH/.test(text)) {
    return 'needs PowerShell 7 (pwsh), which is not on PATH';
  }
  const interpreter = /No interpreter is configured for "([^"]*)" files/.exec(text);
  if (interpreter !== null) {
    return `no interpreter is configured for ${interpreter[1]} files (interpreters: in toolpack.yaml)`;
  }
  const missing =
    /Cannot start "([^"]+)" for tool "[^"]*": it is not installed or not on PATH/.exec(text);
  if (missing !== null) return `needs ${missing[1]}, which is not on PATH`;
  return undefined;
}

/**
 * The smoke test's rule: the tool must answer without an error, in time. An error result
 * fails it, worded by its cause: a timeout, the generated arguments refused (the generator,
 * not the tool, is then at fault, and the fix is an example in the schema), or the tool's
 * own error. A missing pwsh or interpreter is a skip. A structured result must fit the
 * tool's outputSchema.
 */
export function judgeSmokeResult(
  tool: DiscoveredTool,
  result: ToolCallResult,
  context: { args: Record<string, unknown>; timeoutMs: number },
): SmokeVerdict {
  const shown = JSON.stringify(context.args);
  if (!result.isError) {
    if (tool.outputSchema !== undefined && result.structuredContent !== undefined) {
      const check = validateArguments(tool.outputSchema, result.structuredContent);
      if (!check.valid) {
        return {
          status: 'failed',
          reason: `the result does not fit the tool's outputSchema: ${check.message}`,
        };
      }
    }
    return { status: 'passed' };
  }
  const text = textOf(result);
  const missing = findMissingRequirement(text);
  if (missing !== undefined) return { status: 'skipped', reason: missing };
  if (/timed out after \d+ ms/.test(text)) {
    return {
      status: 'failed',
      reason: `no answer within ${context.timeoutMs} ms for ${shown}: the call was stopped (raise --timeout if it needs longer)`,
    };
  }
  if (/^Invalid arguments for /.test(text)) {
    return {
      status: 'failed',
      reason: `the smoke test's generated arguments ${shown} were refused (${summarize(text)}); give the parameter an example the tool accepts, or add a test`,
    };
  }
  return {
    status: 'failed',
    reason: `answered with an error for ${shown}: ${summarize(text)}${
      text === '' ? '(no message)' : ''
    } (if these arguments should fail, give the parameters examples that work, or add a test)`,
  };
}
