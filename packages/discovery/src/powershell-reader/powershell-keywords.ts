/** Keywords that take a condition or block and may continue on later lines (`if` ... `else`). */
export const CONTROL_KEYWORDS: ReadonlySet<string> = new Set([
  'if',
  'elseif',
  'else',
  'switch',
  'foreach',
  'for',
  'while',
  'do',
  'until',
  'try',
  'catch',
  'finally',
]);

/** Keywords that define a function. */
export const FUNCTION_KEYWORDS: ReadonlySet<string> = new Set(['function', 'filter', 'workflow']);

/**
 * Every keyword that opens a statement whose parts may sit on later lines: the control and
 * function keywords, and the other block-taking ones (class, param, begin, workflow blocks...).
 */
export const STATEMENT_KEYWORDS: ReadonlySet<string> = new Set([
  ...CONTROL_KEYWORDS,
  ...FUNCTION_KEYWORDS,
  'trap',
  'configuration',
  'data',
  'class',
  'enum',
  'param',
  'begin',
  'process',
  'end',
  'dynamicparam',
  'parallel',
  'sequence',
  'inlinescript',
]);
