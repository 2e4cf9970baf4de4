import type { z } from 'zod';
import { PARAMETER_TYPES, findClosestName, getIssuePath } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';
import { allowedKeysAt, hintFor } from './workflow-schema.ts';

/** Records one problem of a workflow file at the line of the value at `segments`. */
export type WorkflowReport = (
  code: Diagnostic['code'],
  message: string,
  segments: readonly (string | number)[],
  hint?: string,
  severity?: Diagnostic['severity'],
) => void;

/**
 * Reports each zod issue of the workflow (or of one input, under `prefix`) in words, at its
 * line: an unknown key once per key with a "did you mean", anything else as what is wrong
 * with the value the file holds there.
 */
export function reportSchemaIssues(
  issues: readonly z.core.$ZodIssue[],
  options: { prefix: readonly (string | number)[]; raw: unknown; report: WorkflowReport },
): void {
  const { prefix, raw, report } = options;
  for (const issue of issues) {
    const segments = [...prefix, ...getIssuePath(issue)];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const meant = findClosestName(key, allowedKeysAt(segments));
        report(
          'E_WORKFLOW_SCHEMA',
          `${describePath(segments, 'The workflow')} has the unknown key ${JSON.stringify(key)}.`,
          [...segments, key],
          meant === undefined ? 'Remove it, or check its spelling.' : `Did you mean ${meant}?`,
        );
      }
      continue;
    }
    report(
      'E_WORKFLOW_SCHEMA',
      joinMessage(
        describePath(segments, 'The workflow'),
        describeIssue(issue, valueAt(raw, segments)),
      ),
      segments,
      hintFor(segments),
    );
  }
}

function describePath(segments: readonly (string | number)[], whole: string): string {
  if (segments.length === 0) return whole;
  return segments.reduce<string>(
    (text, segment) =>
      typeof segment === 'number'
        ? `${text}[${segment}]`
        : text === ''
          ? segment
          : `${text}.${segment}`,
    '',
  );
}

const KIND_WORDS: Record<string, string> = {
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/** What is wrong, in words; `value` is what the file holds at the issue's place. */
function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_type') {
    if (value === undefined) return 'is missing';
    const expected = KIND_WORDS[issue.expected] ?? issue.expected;
    if (issue.path.length === 0 && issue.expected === 'object')
      return 'must be a mapping with description and steps';
    return `must be ${expected}, not ${describeValue(value)}`;
  }
  if (issue.code === 'invalid_value' && issue.path[issue.path.length - 1] === 'type') {
    return `is ${JSON.stringify(value)}, not one of ${PARAMETER_TYPES.join(', ')}`;
  }
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

function joinMessage(subject: string, detail: string): string {
  return /^(is|has|must) /.test(detail) ? `${subject} ${detail}.` : `${subject}: ${detail}.`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value) ?? String(value);
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let value: unknown = root;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}
