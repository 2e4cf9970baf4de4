import fc from 'fast-check';

/** Lines made of the grammar's own words, so the parser's deeper paths are reached. */
export const declarationLine = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'PARAM',
        'param',
        'DESCRIPTION',
        'OUTPUT',
        'output',
        'EXAMPLE',
        'OPTIONS',
        'long-running',
        'progressResetsTimeout',
        'TIMEOUT',
        '10m',
        'AS',
        'OF',
        'LIKE',
        'DEFAULT',
        'OPTIONAL',
        'ENUM',
        'string',
        'integer',
        'number',
        'boolean',
        'array',
        'object',
        'date',
      ),
      fc.constantFrom(
        '"x"',
        '""',
        '"a \\" b"',
        '"',
        '[1, 2]',
        '["a"',
        '{"k": 1}',
        '"[1]"',
        '-3',
        '2.5',
        'true',
        'name',
        '9x',
        '""""',
      ),
      fc.string({ maxLength: 5 }),
    ),
    { maxLength: 10 },
  )
  .map((words) => words.join(' '));
