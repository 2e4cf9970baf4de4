import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolpackError } from '@toolpack/core';
import { createHttpRegistry } from './http-registry.ts';
import { RegistryError, readErrorBody } from './registry-error.ts';
import { MAX_SEARCH_LIMIT, searchPacks, type SearchablePack } from './search-packs.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

const versionDoc = {
  name: 'jira',
  version: '1.0.0',
  description: 'Jira tools',
  tags: ['MCPTools'],
  tools: [{ name: 'get_issue', description: 'Gets an issue.', inputSchema: { type: 'object' } }],
  env: [{ name: 'JIRA_TOKEN', required: true, secret: true }],
  dist: { tarball: '/v0/blobs/x.tgz', integrity: 'sha512-abc', size: 10, fileCount: 2 },
};
const goodBodies = {
  search: {
    packs: [{ name: 'jira', version: '1.0.0', description: '', tags: [], toolCount: 1 }],
    metadata: { count: 1, nextCursor: null },
  },
  pack: {
    name: 'jira',
    description: '',
    tags: [],
    latest: '1.0.0',
    versions: { '1.0.0': versionDoc },
  },
  version: versionDoc,
};

/** A JSON document with one value somewhere replaced by anything JSON can hold. */
function mutate(value: unknown, path: readonly number[], replacement: unknown): unknown {
  if (path.length === 0 || typeof value !== 'object' || value === null) return replacement;
  const entries = Object.entries(value);
  if (entries.length === 0) return replacement;
  const [key, child] = entries[path[0]! % entries.length]!;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : { ...value };
  (copy as Record<string, unknown>)[key] = mutate(child, path.slice(1), replacement);
  return copy;
}

const body = fc.oneof(
  fc.string(),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? ''),
  fc
    .tuple(
      fc.constantFrom(...Object.values(goodBodies)),
      fc.array(fc.nat(), { maxLength: 5 }),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([doc, path, replacement]) => JSON.stringify(mutate(doc, path, replacement))),
  fc.constantFrom(...Object.values(goodBodies)).map((doc) => JSON.stringify(doc)),
  fc
    .record({ error: fc.jsonValue({ maxDepth: 2 }), problems: fc.jsonValue({ maxDepth: 2 }) })
    .map((v) => JSON.stringify(v)),
);
const status = fc.oneof(
  fc.constantFrom(200, 201, 204, 301, 400, 401, 403, 404, 409, 413, 422, 429, 500, 503),
  fc.integer({ min: 200, max: 599 }),
);

/** A fetch that answers `status` with `text`, or fails like a dead network when `fail` is set. */
function fakeFetch(answer: { status: number; text: string; fail: boolean }): typeof fetch {
  return (async () => {
    if (answer.fail) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    const empty = answer.status === 204 || answer.status === 205 || answer.status === 304;
    return new Response(empty ? null : answer.text, { status: answer.status });
  }) as typeof fetch;
}

async function expectTypedOutcome(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof ToolpackError)) throw error;
    expect(error.message.length).toBeGreaterThan(0);
    if (error instanceof RegistryError) expect(Array.isArray(error.problems)).toBe(true);
  }
}

describe('the HTTP registry client under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('turns any answer into a document or a ToolpackError, never another exception', async () => {
    await fc.assert(
      fc.asyncProperty(status, body, fc.boolean(), fc.nat(3), async (code, text, failing, pick) => {
        const registry = createHttpRegistry({
          url: 'http://registry.invalid',
          fetch: fakeFetch({ status: code, text, fail: failing && pick === 0 }),
        });
        const calls = [
          () => registry.search({ q: 'jira', tags: ['MCPTools'], limit: 5 }),
          () => registry.getPack('acme/jira'),
          () => registry.getVersion('jira', '1.0.0'),
          () => registry.publish(new Uint8Array([1, 2, 3]), { token: 'tpk_x' }),
        ];
        await expectTypedOutcome(calls[pick]!);
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('reads any error body into a message and well-formed problems', () => {
    fc.assert(
      fc.property(body, (text) => {
        const read = readErrorBody(text);
        if (read.message !== undefined) expect(typeof read.message).toBe('string');
        for (const problem of read.problems) expect(typeof problem.message).toBe('string');
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });
});

describe('searchPacks under fuzzing', { timeout: fuzzTimeout() }, () => {
  const pack: fc.Arbitrary<SearchablePack> = fc.record({
    name: fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,12}$/),
    version: fc.constant('1.0.0'),
    description: fc.string({ maxLength: 30 }),
    tags: fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
    toolCount: fc.nat(10),
  });
  const query = fc.record(
    {
      q: fc.string({ maxLength: 30 }),
      tags: fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
      cursor: fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.nat(50).map((n) => Buffer.from(`o:${n}`).toString('base64url')),
      ),
      limit: fc.oneof(
        fc.integer({ min: -10, max: 500 }),
        fc.double(),
        fc.constantFrom(Number.NaN, Infinity, -Infinity),
      ),
    },
    { requiredKeys: [] },
  );

  it('answers any query with a page no larger than its limit and a usable cursor', () => {
    fc.assert(
      fc.property(fc.array(pack, { maxLength: 40 }), query, (packs, q) => {
        const page = searchPacks(packs, q);
        expect(page.metadata.count).toBe(page.packs.length);
        expect(page.packs.length).toBeLessThanOrEqual(MAX_SEARCH_LIMIT);
        // Whatever the limit (NaN, negative, huge), a first page of a search with matches is not empty.
        const { limit: _limit, ...unlimited } = q;
        if (q.cursor === undefined && searchPacks(packs, unlimited).packs.length > 0)
          expect(page.packs.length).toBeGreaterThan(0);
        if (page.metadata.nextCursor)
          expect(() =>
            searchPacks(packs, { ...q, cursor: page.metadata.nextCursor! }),
          ).not.toThrow();
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });
});
