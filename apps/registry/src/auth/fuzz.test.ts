import fc from 'fast-check';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetadataStore } from '../storage/metadata-store.ts';
import { createSqliteMetadataStore } from '../storage/sqlite-metadata-store.ts';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import { createToken, readBearerToken, verifyToken } from './tokens.ts';
import { fuzzRuns } from '@toolpack/fuzz-runs';

let store: MetadataStore;
let token: string;

beforeAll(async () => {
  store = createSqliteMetadataStore({ file: path.join(await makeTempDir(), 'registry.db') });
  token = (await createToken(store, { owner: 'acme' })).token;
});

afterAll(async () => {
  await store?.close();
  await removeTempDirs();
});

const tokenAlphabet = 'abcdef0123456789ABCDEFXYZ_-tpk';

describe('tokens under fuzzing', () => {
  it('reads any Authorization header into a token or nothing, never an exception', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.string().map((s) => `Bearer ${s}`),
          fc.string().map((s) => `bearer\t${s} `),
        ),
        (header) => {
          const read = readBearerToken(header);
          if (read !== undefined) expect(read).toMatch(/^\S+$/);
        },
      ),
      { numRuns: fuzzRuns(600) },
    );
  });

  it('verifies only the real token: any other string, or the real one with one character changed, is refused', async () => {
    const mutated = fc.tuple(fc.nat(), fc.constantFrom(...tokenAlphabet)).map(([at, char]) => {
      const index = at % token.length;
      return `${token.slice(0, index)}${char}${token.slice(index + 1)}`;
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          mutated,
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.constant(`${token} `),
          fc.constant(token.slice(0, -1)),
        ),
        async (candidate) => {
          const verified = await verifyToken(store, candidate);
          if (candidate === token) expect(verified?.owner).toBe('acme');
          else expect(verified).toBeUndefined();
        },
      ),
      { numRuns: fuzzRuns(800) },
    );
    expect((await verifyToken(store, token))?.owner).toBe('acme');
  });
});
