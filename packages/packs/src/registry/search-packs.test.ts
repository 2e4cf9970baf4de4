import { describe, expect, it } from 'vitest';
import { searchPacks, type SearchablePack } from './search-packs.ts';

const packs: SearchablePack[] = [
  {
    name: 'jira',
    version: '1.0.0',
    description: 'Jira issue tools',
    tags: ['MCPTools', 'jira'],
    toolCount: 5,
    tools: [{ name: 'search_issues', description: 'Finds issues with JQL.' }],
  },
  {
    name: 'json',
    version: '1.1.0',
    description: 'Format and query JSON',
    tags: ['MCPTools', 'data'],
    toolCount: 3,
  },
  {
    name: 'confluence',
    version: '0.1.0',
    description: 'Wiki pages, linked to jira issues',
    tags: ['atlassian'],
    toolCount: 2,
  },
];
const names = (response: ReturnType<typeof searchPacks>) => response.packs.map((p) => p.name);

describe('searchPacks', () => {
  it('matches tags exactly and case-insensitively, all of them', () => {
    expect(names(searchPacks(packs, { tags: ['mcptools'] }))).toEqual(['jira', 'json']);
    expect(names(searchPacks(packs, { tags: ['MCPTools', 'DATA'] }))).toEqual(['json']);
    expect(names(searchPacks(packs, { tags: ['MCPTool'] }))).toEqual([]);
  });

  it('matches every word in name, description, tags or tool names; name matches first', () => {
    expect(names(searchPacks(packs, { q: 'jira' }))).toEqual(['jira', 'confluence']);
    expect(names(searchPacks(packs, { q: 'ISSUES wiki' }))).toEqual(['confluence']);
    expect(names(searchPacks(packs, { q: 'search_issues' }))).toEqual(['jira']);
    expect(names(searchPacks(packs, { q: 'jql' }))).toEqual(['jira']);
  });

  it('pages with an opaque cursor', () => {
    const first = searchPacks(packs, { limit: 2 });
    expect(first.metadata).toEqual({ count: 2, nextCursor: expect.any(String) });
    const second = searchPacks(packs, { limit: 2, cursor: first.metadata.nextCursor! });
    expect([...names(first), ...names(second)]).toEqual(['confluence', 'jira', 'json']);
    expect(second.metadata.nextCursor).toBeNull();
    expect(names(searchPacks(packs, { cursor: 'garbage' }))).toHaveLength(3);
  });
});
