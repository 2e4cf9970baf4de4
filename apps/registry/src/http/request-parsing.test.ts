import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePackPath } from './pack-path.ts';
import { readUpload } from './read-upload.ts';
import { decodeCursor, encodeCursor, parseSearchParams } from './search-params.ts';
import { fuzzRuns } from '@toolpack/fuzz-runs';

describe('parsePackPath', () => {
  it.each([
    ['jira', { kind: 'pack', name: 'jira' }],
    ['jira/', { kind: 'pack', name: 'jira' }],
    ['acme/jira', { kind: 'pack', name: 'acme/jira' }],
    ['acme%2Fjira', { kind: 'pack', name: 'acme/jira' }],
    ['acme/versions', { kind: 'pack', name: 'acme/versions' }],
    ['jira/versions/1.2.0', { kind: 'version', name: 'jira', version: '1.2.0' }],
    ['acme/jira/versions/1.2.0', { kind: 'version', name: 'acme/jira', version: '1.2.0' }],
    [
      'acme%2Fjira/versions/1.2.0-rc.1',
      { kind: 'version', name: 'acme/jira', version: '1.2.0-rc.1' },
    ],
    [
      'jira/versions/1.2.0/yank',
      { kind: 'action', name: 'jira', version: '1.2.0', action: 'yank' },
    ],
    [
      'acme/jira/versions/1.2.0/deprecate',
      { kind: 'action', name: 'acme/jira', version: '1.2.0', action: 'deprecate' },
    ],
  ])('reads %s', (rest, expected) => {
    expect(parsePackPath(rest)).toEqual(expected);
  });

  it.each([
    '',
    'Jira',
    'a/b/c',
    'jira/versions/1.0.0/delete',
    'jira/versions/1.0.0/yank/x',
    '%E0%A4%A',
    'a%2Fb%2Fc',
  ])('refuses %j', (rest) => {
    expect(parsePackPath(rest)).toBeUndefined();
  });

  it('never throws (fuzz)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (rest) => {
        parsePackPath(rest);
        parsePackPath(encodeURIComponent(rest));
      }),
      { numRuns: fuzzRuns(5000) },
    );
  });
});

describe('parseSearchParams', () => {
  const parse = (query: string) => parseSearchParams(new URLSearchParams(query));

  it('reads words, lowercased unique tags, limit and cursor', () => {
    expect(
      parse(
        `q=Jira+issues&tag=MCPTools&tag=mcptools&tag=Atlassian&limit=5&cursor=${encodeCursor(10)}`,
      ),
    ).toEqual({
      ok: true,
      query: {
        words: ['Jira', 'issues'],
        tags: ['mcptools', 'atlassian'],
        exactName: 'jira issues',
        offset: 10,
        limit: 5,
      },
    });
    expect(parse('')).toEqual({ ok: true, query: { words: [], tags: [], offset: 0, limit: 20 } });
  });

  it('caps limit and refuses bad values', () => {
    expect(parse('limit=5000')).toMatchObject({ ok: true, query: { limit: 100 } });
    for (const bad of [
      'limit=0',
      'limit=1.5',
      'limit=x',
      'cursor=zzz',
      `tag=${Array.from({ length: 11 }, (_, i) => `t${i}`).join('&tag=')}`,
    ])
      expect(parse(bad).ok).toBe(false);
  });

  it('round-trips cursors and refuses foreign ones', () => {
    expect(decodeCursor(encodeCursor(40))).toBe(40);
    expect(decodeCursor(Buffer.from('o:99999999').toString('base64url'))).toBeUndefined();
    expect(decodeCursor('!!')).toBeUndefined();
  });
});

describe('readUpload', () => {
  it('takes a raw body as the tarball', async () => {
    expect(await readUpload('application/gzip', Buffer.from('abc'))).toEqual({
      ok: true,
      bytes: Buffer.from('abc'),
    });
    expect(await readUpload(undefined, Buffer.from('abc'))).toEqual({
      ok: true,
      bytes: Buffer.from('abc'),
    });
  });

  it('takes the tarball part of a multipart body', async () => {
    const form = new FormData();
    form.append('note', 'hello');
    form.append('tarball', new Blob([Buffer.from('tgz bytes')]), 'x.tgz');
    const request = new Request('http://x/', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    expect(await readUpload(request.headers.get('content-type') ?? '', body)).toEqual({
      ok: true,
      bytes: Buffer.from('tgz bytes'),
    });
  });

  it('answers a problem, never an exception, for damaged multipart bodies (fuzz)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2000 }),
        fc.string({ maxLength: 40 }),
        async (bytes, boundary) => {
          const result = await readUpload(
            `multipart/form-data; boundary=${boundary}`,
            Buffer.from(bytes),
          );
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: fuzzRuns(1000) },
    );
  });
});
