import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SourceResult } from '../../types.ts';
import { describeHeaderScript } from './describe-header-script.ts';

const GOOD = join(import.meta.dirname, 'fixtures', 'good');
const fixtures = readdirSync(GOOD).map((file) => ({
  file,
  content: readFileSync(join(GOOD, file), 'utf8'),
}));

/** Random edits of a text: inserted, deleted and replaced characters, duplicated and dropped lines. */
const edits = fc.array(
  fc.record({
    kind: fc.constantFrom('insert', 'delete', 'replace', 'duplicate-line', 'drop-line'),
    at: fc.nat(),
    text: fc.string({
      unit: fc.constantFrom(
        '"',
        '\\',
        '[',
        ']',
        '{',
        '}',
        ' ',
        '\n',
        '#',
        '/',
        'A',
        'S',
        'é',
        '\u0000',
        '$',
        '\r',
      ),
      maxLength: 6,
    }),
  }),
  { maxLength: 8 },
);

function mutate(
  content: string,
  changes: readonly { kind: string; at: number; text: string }[],
): string {
  let text = content;
  for (const change of changes) {
    const at = text.length === 0 ? 0 : change.at % (text.length + 1);
    const lines = text.split('\n');
    const line = lines.length === 0 ? 0 : change.at % lines.length;
    switch (change.kind) {
      case 'insert':
        text = text.slice(0, at) + change.text + text.slice(at);
        break;
      case 'delete':
        text = text.slice(0, at) + text.slice(at + 1 + (change.text.length % 5));
        break;
      case 'replace':
        text = text.slice(0, at) + change.text + text.slice(at + change.text.length);
        break;
      case 'duplicate-line':
        lines.splice(line, 0, lines[line] ?? '');
        text = lines.join('\n');
        break;
      default:
        lines.splice(line, 1);
        text = lines.join('\n');
    }
  }
  return text;
}

/** Lines made of the grammar's own words, so the parser's deeper paths are reached. */
const declarationLine = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'PARAM',
        'param',
        'DESCRIPTION',
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
const header = fc
  .tuple(fc.constantFrom('# ', '#', '// ', '## '), fc.array(declarationLine, { maxLength: 8 }))
  .map(([prefix, lines]) => lines.map((line) => `${prefix}${line}`).join('\n'));

function expectOnlyDiagnostics(result: SourceResult): void {
  expect(Array.isArray(result.tools)).toBe(true);
  expect(result.tools.length).toBeLessThanOrEqual(1);
  for (const diagnostic of result.diagnostics) {
    expect(['error', 'warning', 'info']).toContain(diagnostic.severity);
    expect(diagnostic.code).toMatch(/^[EWI]_[A-Z_]+$/);
    expect(diagnostic.message.length).toBeGreaterThan(0);
  }
  if (result.tools.length === 1)
    expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(false);
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
}

describe('describeHeaderScript under fuzzing', () => {
  it('turns random text into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.constantFrom('a.sh', 'b.py', 'c.mjs', 'd.ts', 'e.rb'),
        (content, file) => {
          expectOnlyDiagnostics(describeHeaderScript({ path: `/tools/${file}`, content }));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('turns random declarations into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(header, fc.constantFrom('x.sh', 'x.js'), (content, file) => {
        expectOnlyDiagnostics(describeHeaderScript({ path: `/tools/${file}`, content }));
      }),
      { numRuns: 2000 },
    );
  });

  it('turns mutations of the good fixtures into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), edits, ({ file, content }, changes) => {
        expectOnlyDiagnostics(
          describeHeaderScript({ path: join(GOOD, file), content: mutate(content, changes) }),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a very long header line in linear time', () => {
    const long = `# DESCRIPTION "${'\\"'.repeat(50_000)}"\n# PARAM p AS array LIKE ${'['.repeat(20_000)} DESCRIPTION "x"\n`;
    const started = Date.now();
    expectOnlyDiagnostics(describeHeaderScript({ path: '/tools/long.sh', content: long }));
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
