import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { buildTarball, packManifestText } from '../testing/build-tarball.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';
import { inspectTarball } from './read-tarball.ts';

const seed = buildTarball(
  [
    { path: 'package/toolpack.yaml', data: packManifestText('fuzz', '1.0.0') },
    { path: 'package/scripts/a.mjs', data: 'console.log(1)\n'.repeat(20) },
  ],
  { gzip: false },
);

describe('inspectTarball under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('turns any mutated tar into files or problems, never an exception', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: seed.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 12,
        }),
        (mutations) => {
          const tar = Buffer.from(seed);
          for (const [offset, value] of mutations) tar[offset] = value;
          const result = inspectTarball(gzipSync(tar), { limits: { maxEntries: 50 } });
          expect(result.files !== undefined || result.problems.length > 0).toBe(true);
          for (const file of result.files ?? [])
            expect(file.path).not.toMatch(/(^|\/)\.\.(\/|$)|^\//);
        },
      ),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('turns random bytes after a gzip magic into problems', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 2000 }), (bytes) => {
        const result = inspectTarball(
          Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from(bytes)]),
        );
        expect(result.files === undefined ? result.problems.length > 0 : true).toBe(true);
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('never accepts an entry path that escapes, whatever the path', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9./\\:_-]{1,40}$/), (name) => {
        const result = inspectTarball(buildTarball([{ path: `package/${name}`, data: 'x' }]));
        for (const file of result.files ?? []) {
          expect(file.path.split('/')).not.toContain('..');
          expect(file.path.startsWith('/')).toBe(false);
          expect(file.path).not.toContain('\\');
        }
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });
});
