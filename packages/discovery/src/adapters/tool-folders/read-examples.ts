import {
  isPlainObject,
  validateArguments,
  type ObjectJsonSchema,
  type ToolInputExample,
} from '@toolpack/core';
import { type LineOf, type Report, describeValue } from './metadata-report.ts';

const FORM = 'examples:\n  - description: What the call does\n    arguments: { name: value }';

/**
 * Reads `examples:` — a list of `{ arguments, description }`, with dotbot's own `input` read
 * as `arguments`. dotbot files carried examples before Toolpack read them, in shapes of their
 * own: one that cannot be read, or whose arguments do not fit the input schema, is left out
 * with a warning rather than refusing a tool that served before.
 */
export function readExamples(
  value: unknown,
  inputSchema: ObjectJsonSchema | undefined,
  report: Report,
  lineOf: LineOf,
): ToolInputExample[] {
  if (value === undefined || value === null) return [];
  const skip = (message: string, line: number, hint = `Write them as\n${FORM}`): void =>
    report('warning', 'W_EXAMPLE_IGNORED', message, line, hint);
  if (!Array.isArray(value)) {
    skip(
      `examples must be a list, not ${describeValue(value)}; it is ignored.`,
      lineOf('examples'),
    );
    return [];
  }
  const examples: ToolInputExample[] = [];
  value.forEach((entry: unknown, index) => {
    const line = lineOf('examples', index);
    const where = `examples[${index}]`;
    if (!isPlainObject(entry)) {
      skip(
        `${where} must be a mapping with arguments, not ${describeValue(entry)}; it is left out.`,
        line,
      );
      return;
    }
    const key =
      entry.arguments !== undefined ? 'arguments' : entry.input !== undefined ? 'input' : undefined;
    const args = key === undefined ? undefined : entry[key];
    if (!isPlainObject(args)) {
      skip(
        key === undefined
          ? `${where} has no arguments; it is left out.`
          : `${where}.${key} must be a mapping of argument names to values, not ${describeValue(args)}; it is left out.`,
        key === undefined ? line : lineOf('examples', index, key),
      );
      return;
    }
    const description = entry.description;
    if (
      description !== undefined &&
      (typeof description !== 'string' || description.trim() === '')
    ) {
      skip(
        `${where}.description must be text, not ${describeValue(description)}; the example is left out.`,
        lineOf('examples', index, 'description'),
        'Write description: followed by what the call does.',
      );
      return;
    }
    if (inputSchema !== undefined) {
      const validation = validateArguments(inputSchema, args);
      if (!validation.valid) {
        skip(
          `${where}.${key} do not fit the input schema (${validation.message}); the example is left out.`,
          lineOf('examples', index, key ?? 'arguments'),
          'Give each required property a value of its type, and no property the input schema does not declare.',
        );
        return;
      }
    }
    const example: ToolInputExample = { arguments: args };
    if (typeof description === 'string') example.description = description.trim();
    examples.push(example);
  });
  return examples;
}
