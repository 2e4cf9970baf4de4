import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isToolpackError } from '@toolpack/core';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';
import { readNupkgAsPack } from './nupkg-to-pack.ts';
import { parseNuspec } from './parse-nuspec.ts';
import { inspectNupkg } from './read-nupkg.ts';

const real = readFileSync(path.join(import.meta.dirname, 'fixtures/EchoTools.1.2.0.nupkg'));

/** The real package with some bytes overwritten: damaged headers, sizes, names, data. */
const damaged = fc
  .array(fc.tuple(fc.nat({ max: real.length - 1 }), fc.integer({ min: 0, max: 255 })), {
    minLength: 1,
    maxLength: 8,
  })
  .map((edits) => {
    const bytes = Buffer.from(real);
    for (const [at, value] of edits) bytes[at] = value;
    return bytes;
  });

describe('the .nupkg reader under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('answers every damaged package with files or problems, never a crash; a pack only when every check passed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(damaged, fc.uint8Array({ maxLength: 600 }).map(Buffer.from)),
        async (bytes) => {
          const inspected = await inspectNupkg(bytes, { label: 'fuzz.nupkg' });
          expect(inspected.files === undefined).toBe(inspected.problems.length > 0);
          try {
            const pack = await readNupkgAsPack(bytes, { name: 'echotools', version: '1.2.0' });
            expect(inspected.files).toBeDefined();
            for (const file of pack.files)
              expect(file.path).toMatch(/^(toolpack\.yaml|EchoTools\/[^/].*)$/);
          } catch (error) {
            expect(isToolpackError(error)).toBe(true);
          }
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('reads any text as a .nuspec or as none, never throwing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const nuspec = parseNuspec(`<package><metadata>${text}</metadata></package>`);
        if (nuspec !== undefined) expect(nuspec.id).not.toBe('');
        expect(() => parseNuspec(text)).not.toThrow();
      }),
      { numRuns: fuzzRuns(500) },
    );
  });
});
