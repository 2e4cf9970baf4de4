import type { DeclarationProblem } from './declaration-types.ts';
import { Scanner } from './literal-scanner.ts';

/** Reads the text after a `DESCRIPTION` keyword: a quoted string, or the rest of the line. */
export function parseDescriptionText(
  body: string,
): { ok: true; text: string } | { ok: false; problem: DeclarationProblem } {
  const scanner = new Scanner(body);
  scanner.skipSpace();
  let text: string;
  if (scanner.peek() === '"') {
    const quoted = scanner.readQuoted();
    if (quoted === undefined) {
      return {
        ok: false,
        problem: {
          code: 'E_DECLARATION_SYNTAX',
          message: 'The DESCRIPTION text has no closing double quote.',
          hint: 'Close the text with " (write \\" or "" for a quote inside it).',
        },
      };
    }
    scanner.skipSpace();
    if (!scanner.done()) {
      return {
        ok: false,
        problem: {
          code: 'E_DECLARATION_SYNTAX',
          message: `Unexpected text after the DESCRIPTION: ${JSON.stringify(scanner.rest().trim())}.`,
          hint: 'Put the whole description inside one pair of double quotes.',
        },
      };
    }
    text = quoted;
  } else {
    text = scanner.rest();
  }
  return checkDescription(text);
}

/** Checks a DESCRIPTION text that has been read: it must not be empty. */
export function checkDescription(
  raw: string,
): { ok: true; text: string } | { ok: false; problem: DeclarationProblem } {
  const text = raw.trim();
  if (text === '') {
    return {
      ok: false,
      problem: {
        code: 'E_EMPTY_DESCRIPTION',
        message: 'The DESCRIPTION is empty.',
        hint: 'Write what it is for: DESCRIPTION "...".',
      },
    };
  }
  return { ok: true, text };
}
