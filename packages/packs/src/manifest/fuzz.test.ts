import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { removeManifestPack, setManifestPack } from './edit-manifest.ts';
import { parseManifest } from './parse-manifest.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

const keys = [
  'name',
  'version',
  'description',
  'tags',
  'sources',
  'env',
  'packs',
  'policy',
  'include',
  'exclude',
  'maxTools',
  'strict',
  'lenientHelp',
  'schemaDialect',
  'progressTimeoutCap',
  'interpreters',
  'registry',
  'other',
];

describe('toolpack.yaml under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('any text gives a manifest or diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const result = parseManifest(text, { path: 'toolpack.yaml', kind: 'pack' });
        expect(result.manifest !== undefined || result.diagnostics.length > 0).toBe(true);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('any shape of the known keys gives a manifest or diagnostics', () => {
    const value = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 12 }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('any'), { maxLength: 3 }),
        fc.dictionary(
          fc.constantFrom(...keys, 'tools', 'scripts', 'module', 'workflows', 'required'),
          tie('any'),
          { maxKeys: 3 },
        ),
      ),
    })).any;
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 8 }), (object) => {
        const text = stringify(object);
        for (const kind of ['project', 'pack'] as const) {
          const result = parseManifest(text, { path: 'toolpack.yaml', kind });
          for (const d of result.diagnostics) expect(d.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('adding then removing a pack gives back the original text of a valid manifest', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
          fc.constantFrom('^1.0.0', '~2.1', '1.x', '>=1.0.0 <2'),
          { maxKeys: 4 },
        ),
        fc.boolean(),
        (existing, withComment) => {
          const base = `${withComment ? '# project\n' : ''}sources: []\n${Object.keys(existing).length > 0 ? stringify({ packs: existing }) : ''}`;
          const added = setManifestPack(base, { alias: 'zz-new', name: 'zz-new', range: '^3.0.0' });
          expect(parseManifest(added, { path: 'x' }).manifest?.packs['zz-new']).toBe('^3.0.0');
          expect(
            removeManifestPack(added, 'zz-new').text.replace(/packs:\s*\{\s*\}\n|packs:\n$/, ''),
          ).toBe(base.replace(/packs:\s*\{\s*\}\n/, ''));
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });
});
