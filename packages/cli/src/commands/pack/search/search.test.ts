import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { searchRegistry } from './index.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', '..');
const officialPacks = path.join(repo, 'registry', 'packs');

describe('searchRegistry', { timeout: 60_000 }, () => {
  it('returns the registry answer and where it came from, without a subprocess', async () => {
    const { response, location } = await searchRegistry({
      cwd: repo,
      env: {},
      words: [],
      tags: ['mcptools', 'JSON'],
      registry: officialPacks,
    });
    expect(location).toBe(officialPacks);
    expect(response).toEqual({
      packs: [
        {
          name: 'json',
          version: '1.1.1',
          description: expect.stringMatching(/^JSON tools/),
          tags: ['MCPTools', 'json', 'data'],
          toolCount: 3,
        },
      ],
      metadata: { count: 1, nextCursor: null },
    });
  });

  it('matches words and honours the limit', async () => {
    const { response } = await searchRegistry({
      cwd: repo,
      env: {},
      words: ['jira'],
      tags: [],
      limit: 1,
      registry: officialPacks,
    });
    expect(response.packs.map((pack) => pack.name)).toEqual(['jira']);
  });

  it('takes the registry from TOOLPACK_REGISTRY when no registry is given', async () => {
    const { location, response } = await searchRegistry({
      cwd: repo,
      env: { TOOLPACK_REGISTRY: officialPacks },
      words: [],
      tags: ['nothing-has-this'],
    });
    expect(location).toBe(officialPacks);
    expect(response.packs).toEqual([]);
  });
});
