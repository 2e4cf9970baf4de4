// Test support for the search fuzz suites (never imported by the registry itself).
import fc from 'fast-check';

/**
 * Pieces of FTS5 and tsquery syntax, and characters SQL or the tokenizer treat specially, to mix
 * into random search text: a query built from user words must never be read as syntax.
 */
export const ftsSyntaxPiece: fc.Arbitrary<string> = fc.constantFrom(
  '"',
  '*',
  '(',
  ')',
  'NEAR',
  'OR',
  'AND',
  'NOT',
  ':',
  '^',
  '-',
  '+',
  '{',
  '}',
  "'",
  ';',
  '%',
  ' ',
  '\u0000',
  '🎉',
  'é',
  // PostgreSQL tsquery syntax.
  '&',
  '|',
  '!',
  '<->',
  '<2>',
  ':*',
  ':AB',
  '\\',
);
