import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolpackError } from '@toolpack/core';
import {
  isValidPackName,
  isValidRange,
  parsePackSpecifier,
  readPackDependency,
  writePackDependency,
} from './pack-names.ts';
import { fuzzRuns, fuzzTimeout, WORST_CASE_INPUT_MS } from '@toolpack/fuzz-runs';

const segment = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,30}$/);
const name = fc.oneof(
  segment,
  fc.tuple(segment, segment).map(([a, b]) => `${a}/${b}`),
);
const version = fc
  .tuple(fc.nat(30), fc.nat(30), fc.nat(30))
  .map(([major, minor, patch]) => `${major}.${minor}.${patch}`);
const range = fc.oneof(
  version,
  version.map((v) => `^${v}`),
  version.map((v) => `~${v}`),
  version.map((v) => `>=${v}`),
  fc.nat(9).map((major) => `${major}.x`),
  fc.constant('*'),
  fc.tuple(version, version).map(([a, b]) => `${a} - ${b}`),
  fc.tuple(version, version).map(([a, b]) => `^${a} || ~${b}`),
);
const syntax = fc.constantFrom(
  '@',
  '/',
  '^',
  '~',
  '*',
  ' ',
  '||',
  '-',
  '.',
  'x',
  '>',
  '<',
  '=',
  '\0',
);
/** Specifier-like text: pieces of real specifiers glued with the characters they are built from. */
const specifierish = fc
  .array(fc.oneof(segment, range, syntax, fc.string({ maxLength: 6 })), { maxLength: 12 })
  .map((parts) => parts.join(''));
const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), specifierish);

describe('pack specifiers under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('parsePackSpecifier gives a valid name and range, or E_USAGE, never another exception', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        try {
          const parsed = parsePackSpecifier(text);
          expect(isValidPackName(parsed.name)).toBe(true);
          if (parsed.range !== undefined) expect(isValidRange(parsed.range)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolpackError);
          expect((error as ToolpackError).code).toBe('E_USAGE');
        }
      }),
      { numRuns: fuzzRuns(3000) },
    );
  });

  it('reads back every specifier it could have been given', () => {
    fc.assert(
      fc.property(name, fc.option(range, { nil: undefined }), (packName, packRange) => {
        const text = packRange === undefined ? packName : `${packName}@${packRange}`;
        expect(parsePackSpecifier(text)).toEqual(
          packRange === undefined ? { name: packName } : { name: packName, range: packRange },
        );
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('readPackDependency gives a dependency or a problem message, never an exception', () => {
    fc.assert(
      fc.property(anyText, anyText, (key, value) => {
        const read = readPackDependency(key, value);
        if (typeof read === 'string') {
          expect(read.length).toBeGreaterThan(0);
          return;
        }
        expect(isValidPackName(read.name)).toBe(true);
        expect(isValidRange(read.range)).toBe(true);
        // What it accepts is written back to the same dependency.
        const written = writePackDependency(read);
        expect(readPackDependency(written.key, written.value)).toEqual(read);
      }),
      { numRuns: fuzzRuns(3000) },
    );
  });

  it('round-trips every dependency through writePackDependency', () => {
    fc.assert(
      fc.property(
        name,
        fc.option(segment, { nil: undefined }),
        range,
        (packName, alias, packRange) => {
          const dependency = {
            alias: alias ?? packName.slice(packName.lastIndexOf('/') + 1),
            name: packName,
            range: packRange,
          };
          const written = writePackDependency(dependency);
          expect(readPackDependency(written.key, written.value)).toEqual(dependency);
        },
      ),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('answers quickly for very long hostile ranges (no regular-expression blow-up)', () => {
    const hostile = [
      `^${'1.'.repeat(5000)}`,
      `${'~ '.repeat(5000)}1.0.0`,
      `${'1.0.0 || '.repeat(2000)}x`,
      `${' '.repeat(20_000)}^`,
      `jira@${'>'.repeat(10_000)}`,
      `${'a'.repeat(10_000)}@1.0.0`,
    ];
    for (const text of hostile) {
      const started = performance.now();
      try {
        parsePackSpecifier(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ToolpackError);
      }
      readPackDependency('jira', text);
      expect(performance.now() - started, text.slice(0, 20)).toBeLessThan(WORST_CASE_INPUT_MS);
    }
  });
});
