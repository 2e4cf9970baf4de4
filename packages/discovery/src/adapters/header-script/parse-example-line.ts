import { isPlainObject, type ToolInputExample } from '@toolpack/core';
import type { DeclarationProblem } from './declaration-types.ts';
import { Scanner } from './literal-scanner.ts';
import { parseDescriptionText } from './parse-description-text.ts';

const EXAMPLE_FORM = 'EXAMPLE {"name": "value"} DESCRIPTION "what the call does"';

export type ExampleLineResult =
  { ok: true; example: ToolInputExample } | { ok: false; problem: DeclarationProblem };

/**
 * Reads the text after `EXAMPLE`: the call's arguments as one JSON object (the form LIKE
 * already takes for objects, so one rule covers both), then an optional DESCRIPTION saying
 * what the call shows. Whether the arguments fit the input schema is checked once the whole
 * tool is read.
 */
export function parseExampleLine(body: string): ExampleLineResult {
  const fail = (message: string, hint = `Write it as ${EXAMPLE_FORM}.`): ExampleLineResult => ({
    ok: false,
    problem: { code: 'E_DECLARATION_SYNTAX', message, hint },
  });
  const scanner = new Scanner(body);
  scanner.skipSpace();
  if (scanner.done()) return fail('EXAMPLE needs the arguments of a call, as a JSON object.');
  const literal = scanner.readLiteral();
  if (!literal.ok) return fail(`EXAMPLE ${literal.message}`, literal.hint);
  if (literal.value.kind !== 'json' || !isPlainObject(literal.value.value)) {
    return fail(
      `EXAMPLE needs a JSON object of arguments, not ${JSON.stringify(literal.value.text)}.`,
    );
  }
  const example: ToolInputExample = { arguments: literal.value.value };
  scanner.skipSpace();
  if (scanner.done()) return { ok: true, example };
  const word = scanner.readWord();
  if (word.toUpperCase() !== 'DESCRIPTION') {
    return fail(
      `Unexpected ${JSON.stringify(word || scanner.rest().trim().slice(0, 20))} after the EXAMPLE's arguments: expected DESCRIPTION.`,
    );
  }
  const parsed = parseDescriptionText(scanner.rest());
  if (!parsed.ok) {
    const message =
      parsed.problem.message.charAt(0).toLowerCase() + parsed.problem.message.slice(1);
    return { ok: false, problem: { ...parsed.problem, message: `EXAMPLE: ${message}` } };
  }
  example.description = parsed.text;
  return { ok: true, example };
}
