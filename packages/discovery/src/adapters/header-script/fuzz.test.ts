import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdits, readFixtureFiles, textEdits } from '../../testing/fuzz-mutations.ts';
import { fuzzRuns, fuzzTimeout, WORST_CASE_INPUT_MS } from '@toolpack/fuzz-runs';
import { declarationLine } from './declaration-arbitraries.ts';
import { describeHeaderScript } from './describe-header-script.ts';
import { expectOnlyDiagnostics } from '../../testing/expect-only-diagnostics.ts';

const GOOD = join(import.meta.dirname, 'fixtures', 'good');
const fixtures = readFixtureFiles(GOOD);

const edits = textEdits([
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
]);

const header = fc
  .tuple(fc.constantFrom('# ', '#', '// ', '## '), fc.array(declarationLine, { maxLength: 8 }))
  .map(([prefix, lines]) => lines.map((line) => `${prefix}${line}`).join('\n'));

describe('describeHeaderScript under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('turns random text into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.constantFrom('a.sh', 'b.py', 'c.mjs', 'd.ts', 'e.rb'),
        (content, file) => {
          expectOnlyDiagnostics(describeHeaderScript({ path: `/tools/${file}`, content }));
        },
      ),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('turns random declarations into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(header, fc.constantFrom('x.sh', 'x.js'), (content, file) => {
        expectOnlyDiagnostics(describeHeaderScript({ path: `/tools/${file}`, content }));
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('turns mutations of the good fixtures into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), edits, ({ file, content }, changes) => {
        expectOnlyDiagnostics(
          describeHeaderScript({ path: join(GOOD, file), content: applyEdits(content, changes) }),
        );
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('reads a very long header line in linear time', () => {
    const long = `# DESCRIPTION "${'\\"'.repeat(50_000)}"\n# PARAM p AS array LIKE ${'['.repeat(20_000)} DESCRIPTION "x"\n`;
    const started = Date.now();
    expectOnlyDiagnostics(describeHeaderScript({ path: '/tools/long.sh', content: long }));
    expect(Date.now() - started).toBeLessThan(WORST_CASE_INPUT_MS);
  });

  it('reads long OUTPUT, EXAMPLE, OPTIONS and TIMEOUT lines in linear time', () => {
    const spaces = ' '.repeat(50_000);
    const long = [
      '# DESCRIPTION "x"',
      `# TIMEOUT 1${spaces}x`,
      `# timeout 1${spaces}x`,
      `# OPTIONS ${'a'.repeat(50_000)}`,
      `# EXAMPLE {${spaces}`,
      `# OUTPUT o AS ${'['.repeat(50_000)}`,
    ].join('\n');
    const started = Date.now();
    expectOnlyDiagnostics(describeHeaderScript({ path: '/tools/long.sh', content: long }));
    expect(Date.now() - started).toBeLessThan(WORST_CASE_INPUT_MS);
  });
});
