import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeIntegrity } from '../integrity/integrity.ts';
import type { PackDependency } from '../names/pack-names.ts';
import {
  LOCKFILE_VERSION,
  createEmptyLockfile,
  findLockDrift,
  parseLockfile,
  serializeLockfile,
  type Lockfile,
} from './lockfile.ts';
import { fuzzRuns, fuzzTimeout, WORST_CASE_INPUT_MS } from '@toolpack/fuzz-runs';

const segment = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);
// Names a plain object already answers for: a lockfile must not see them as locked packs.
const trickyAlias = fc.constantFrom('constructor', 'prototype', '__proto__', 'toString', 'valueof');
const alias = fc.oneof(segment, trickyAlias);
const name = fc.oneof(
  segment,
  fc.tuple(segment, segment).map(([a, b]) => `${a}/${b}`),
);
const version = fc
  .tuple(fc.nat(20), fc.nat(20), fc.nat(20))
  .map(([major, minor, patch]) => `${major}.${minor}.${patch}`);
const integrity = fc.uint8Array({ maxLength: 64 }).map((bytes) => computeIntegrity(bytes));
const entry = fc.record({
  name,
  version,
  resolved: fc.oneof(
    fc.webUrl(),
    fc.string({ minLength: 1 }).map((s) => `file:${s}`),
  ),
  integrity,
});
const validLock = fc
  .dictionary(segment, entry, { maxKeys: 6 })
  .map((packs): Lockfile => ({ lockfileVersion: LOCKFILE_VERSION, packs }));

/** One value somewhere in a lockfile replaced by anything JSON can hold. */
const mutatedLock = fc
  .tuple(validLock, fc.nat(), fc.jsonValue({ maxDepth: 3 }), alias)
  .map(([lock, pick, value, key]) => {
    const json = JSON.parse(JSON.stringify(lock)) as Record<string, unknown>;
    const packs = json.packs as Record<string, Record<string, unknown>>;
    const aliases = Object.keys(packs);
    const target = aliases[pick % Math.max(1, aliases.length)];
    switch (pick % 5) {
      case 0:
        json.lockfileVersion = value;
        break;
      case 1:
        json.packs = value;
        break;
      case 2:
        if (target !== undefined) packs[target] = value as Record<string, unknown>;
        break;
      case 3:
        if (target !== undefined)
          packs[target]![['name', 'version', 'resolved', 'integrity'][pick % 4]!] = value;
        break;
      default:
        packs[key] = packs[target ?? ''] ?? (value as Record<string, unknown>);
    }
    return JSON.stringify(json);
  });

function expectDiagnosticsOnly(text: string): Lockfile | undefined {
  const result = parseLockfile(text, 'toolpack.lock');
  if (result.lock === undefined) {
    expect(result.diagnostics.length).toBeGreaterThan(0);
    for (const diagnostic of result.diagnostics) {
      expect(diagnostic.severity).toBe('error');
      expect(diagnostic.code).toBe('E_LOCKFILE');
      expect(diagnostic.path).toBe('toolpack.lock');
    }
  } else {
    expect(result.diagnostics).toEqual([]);
  }
  return result.lock;
}

describe('toolpack.lock under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('turns any text into a lockfile or diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (text) => {
        expectDiagnosticsOnly(text);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('turns JSON of any shape into a lockfile or diagnostics', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expectDiagnosticsOnly(JSON.stringify(value) ?? '');
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('turns mutated lockfiles into a lockfile or diagnostics; what it accepts round-trips', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          mutatedLock,
          validLock.map((lock) => serializeLockfile(lock)),
        ),
        (text) => {
          const lock = expectDiagnosticsOnly(text);
          if (lock === undefined) return;
          const again = parseLockfile(serializeLockfile(lock), 'toolpack.lock');
          expect(again.diagnostics).toEqual([]);
          expect(serializeLockfile(again.lock!)).toBe(serializeLockfile(lock));
        },
      ),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('finds drift without mistaking Object.prototype names for locked packs', () => {
    const dependency = fc.record({
      alias,
      name,
      range: fc.constantFrom('^1.0.0', '~0.2.0', '*', '>=2.0.0 <3.0.0', '1.x'),
    });
    fc.assert(
      fc.property(
        fc.array(dependency, { maxLength: 5 }),
        fc.oneof(
          validLock.map((lock) => serializeLockfile(lock)),
          fc.constant(''),
        ),
        (dependencies: PackDependency[], text) => {
          const lock = text === '' ? createEmptyLockfile() : parseLockfile(text, 'x').lock!;
          const drift = findLockDrift(dependencies, lock);
          for (const dependency of dependencies) {
            if (!Object.hasOwn(lock.packs, dependency.alias))
              expect(drift).toContainEqual(
                expect.objectContaining({ alias: dependency.alias, kind: 'not-locked' }),
              );
          }
          expect(() => findLockDrift(dependencies, undefined)).not.toThrow();
        },
      ),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('answers quickly for a huge lockfile', () => {
    const packs = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [
        `p${i}`,
        {
          name: `p${i}`,
          version: '1.0.0',
          resolved: 'file:x',
          integrity: computeIntegrity(Uint8Array.of(i % 256)),
        },
      ]),
    );
    const started = performance.now();
    const lock = expectDiagnosticsOnly(JSON.stringify({ lockfileVersion: 1, packs }));
    expect(Object.keys(lock!.packs)).toHaveLength(3000);
    expect(performance.now() - started).toBeLessThan(WORST_CASE_INPUT_MS);
  });
});
