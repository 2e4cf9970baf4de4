import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdits, readFixtureFiles, textEdits } from '../../testing/fuzz-mutations.ts';
import { fuzzRuns, fuzzTimeout, WORST_CASE_INPUT_MS } from '@toolpack/fuzz-runs';
import { declarationLine } from '../header-script/declaration-arbitraries.ts';
import { describeBasicScript } from './describe-basic-script.ts';
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
  "'",
  'R',
  'A',
  'S',
  'é',
  '\u0000',
  '$',
  '\r',
]);

const program = fc
  .array(
    fc.oneof(
      declarationLine,
      fc.constantFrom(
        "' comment",
        'REM x',
        'BEGIN SYSTEM PROMPT',
        'END SYSTEM PROMPT',
        'BEGIN TALK',
        'END',
        'TALK "hi"',
        '',
      ),
    ),
    {
      maxLength: 12,
    },
  )
  .map((lines) => lines.join('\n'));

describe('describeBasicScript under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('turns random text into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (content) => {
        expectOnlyDiagnostics(describeBasicScript({ path: '/tools/tool.bas', content }));
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('turns random declarations into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(program, (content) => {
        expectOnlyDiagnostics(describeBasicScript({ path: '/tools/x.bas', content }));
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('turns mutations of the good fixtures into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), edits, ({ file, content }, changes) => {
        expectOnlyDiagnostics(
          describeBasicScript({ path: join(GOOD, file), content: applyEdits(content, changes) }),
        );
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('reads very long lines and many open blocks in linear time', () => {
    const long = `DESCRIPTION "${'""'.repeat(50_000)}"\nPARAM p AS array LIKE "${'['.repeat(20_000)} DESCRIPTION "x"\n${'BEGIN X\n'.repeat(5000)}`;
    const started = Date.now();
    expectOnlyDiagnostics(describeBasicScript({ path: '/tools/long.bas', content: long }));
    expect(Date.now() - started).toBeLessThan(WORST_CASE_INPUT_MS);
  });
});
