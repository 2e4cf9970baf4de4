import { readFile } from 'node:fs/promises';
import {
  createDiagnostic,
  createIssueDiagnostics,
  formatIssuePath,
  parseLocatedYaml,
  toolPolicySchema,
  type Diagnostic,
  type ToolPolicy,
} from '@toolpack/core';

export interface LoadedPolicy {
  /** Undefined when the file has errors: a server must not start with half a policy. */
  policy?: ToolPolicy;
  diagnostics: Diagnostic[];
}

const POLICY_HINT =
  'A policy is { allow: [wildcards], deny: [wildcards], readOnly: true|false }, e.g. policy: { deny: ["*_delete*"] }.';

/**
 * Checks a policy value (already parsed from YAML or JSON) and returns it with `origin` set,
 * or the diagnostics that explain what is wrong with it. `location.path` is shown as given,
 * so pass it relative to the project for messages.
 */
export function parsePolicy(
  value: unknown,
  location: { path: string; line?: number },
): LoadedPolicy {
  const parsed = toolPolicySchema.safeParse(value ?? {});
  if (!parsed.success) {
    return {
      diagnostics: createIssueDiagnostics(parsed.error.issues, {
        code: 'E_POLICY',
        locate: () => location,
        hint: () => POLICY_HINT,
        describe: (issue, path) =>
          `The policy is invalid at ${formatIssuePath(path)}: ${issue.message}.`,
      }),
    };
  }
  const policy: ToolPolicy = {
    ...parsed.data,
    origin: location.line === undefined ? location.path : `${location.path}:${location.line}`,
  };
  return { policy, diagnostics: [] };
}

/**
 * Reads a policy file given with `--policy` (YAML or JSON). `shownAs` names the file in
 * diagnostics and as the policy's origin (relative to the project, so output is the same on
 * every machine). A missing file is an error: it was asked for by name.
 */
export async function readPolicyFile(options: {
  file: string;
  shownAs: string;
}): Promise<LoadedPolicy> {
  const { file, shownAs } = options;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return {
      diagnostics: [
        createDiagnostic(
          'error',
          'E_POLICY',
          `Cannot read the policy file: ${(error as Error).message}`,
          { path: shownAs },
          'Check the path given to --policy.',
        ),
      ],
    };
  }
  const located = parseLocatedYaml(text);
  const [problem] = located.problems;
  if (problem !== undefined) {
    return {
      diagnostics: [
        createDiagnostic(
          'error',
          'E_POLICY',
          `The policy file is not valid YAML or JSON: ${problem.message}`,
          { path: shownAs, ...(problem.line === undefined ? {} : { line: problem.line }) },
          'Fix the syntax at that line.',
        ),
      ],
    };
  }
  return parsePolicy(located.value, { path: shownAs });
}
