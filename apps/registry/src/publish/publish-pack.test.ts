import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsBlobStore } from '../storage/fs-blob-store.ts';
import { createSqliteMetadataStore } from '../storage/sqlite-metadata-store.ts';
import { makeTempDir, packFixture, removeTempDirs } from '../testing/registry-fixtures.ts';
import { listPackTools } from './list-pack-tools.ts';
import { checkOwnership, publishPack, type PublishContext } from './publish-pack.ts';
import { fuzzRuns } from '@toolpack/fuzz-runs';

let context: PublishContext;
let valid: Buffer;

beforeAll(async () => {
  const dir = await makeTempDir();
  context = {
    store: createSqliteMetadataStore({ file: ':memory:' }),
    blobs: createFsBlobStore({ dir: path.join(dir, 'blobs') }),
    limits: {},
    listTools: listPackTools,
    workDir: path.join(dir, 'tmp'),
  };
  valid = await packFixture('weather');
});

afterAll(async () => {
  await context?.store.close();
  await removeTempDirs();
});

describe('checkOwnership', () => {
  it('gives owner/name to its owner and a bare name to its first publisher', () => {
    expect(
      checkOwnership({ name: 'acme/jira', owner: undefined, publisher: 'acme' }),
    ).toBeUndefined();
    expect(checkOwnership({ name: 'acme/jira', owner: undefined, publisher: 'bob' })).toMatch(
      /belongs to acme/,
    );
    expect(checkOwnership({ name: 'jira', owner: undefined, publisher: 'bob' })).toBeUndefined();
    expect(checkOwnership({ name: 'jira', owner: 'acme', publisher: 'bob' })).toMatch(
      /Publish it as bob\/jira/,
    );
    expect(checkOwnership({ name: 'jira', owner: 'acme', publisher: 'acme' })).toBeUndefined();
  });
});

describe('publishPack', () => {
  it('answers 201, then 409 for the same version', async () => {
    const first = await publishPack(context, { bytes: valid, owner: 'acme', publishedBy: 't1' });
    expect(first.status).toBe(201);
    expect(
      await context.blobs.has(`sha512/${createHash('sha512').update(valid).digest('hex')}`),
    ).toBe(true);
    expect(
      (await publishPack(context, { bytes: valid, owner: 'acme', publishedBy: 't1' })).status,
    ).toBe(409);
  });

  it('answers only 201, 403, 409 or 422 for damaged and mutated tarballs, never an exception (fuzz)', async () => {
    const tar = gunzipSync(valid);
    const mutate = fc.oneof(
      // Flip bytes of the gzip stream itself.
      fc
        .array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        })
        .map((flips) => {
          const bytes = Buffer.from(valid);
          for (const [at, value] of flips) bytes[at] = value;
          return bytes;
        }),
      // Flip bytes of the tar inside a good gzip layer: headers, names, sizes, checksums.
      fc
        .array(fc.tuple(fc.nat({ max: tar.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        })
        .map((flips) => {
          const bytes = Buffer.from(tar);
          for (const [at, value] of flips) bytes[at] = value;
          return gzipSync(bytes);
        }),
      fc.nat({ max: tar.length }).map((end) => gzipSync(tar.subarray(0, end))),
      fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)),
    );
    let published = 0;
    await fc.assert(
      fc.asyncProperty(mutate, async (bytes) => {
        const outcome = await publishPack(context, { bytes, owner: 'fuzzer', publishedBy: 'fuzz' });
        expect([201, 403, 409, 422]).toContain(outcome.status);
        if (outcome.status === 201) published += 1;
        if (outcome.status === 422) expect(outcome.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: fuzzRuns(400) },
    );
    expect(published).toBeLessThan(fuzzRuns(400));
  }, 30_000);
});
