import { describe, expect, it } from 'vitest';
import { buildInputSchema, type ToolDefinition } from '@toolpack/core';
import { createToolSearchIndex } from './tool-search-index.ts';

const tool = (
  name: string,
  description: string,
  extra: Partial<ToolDefinition> = {},
): ToolDefinition => ({
  name,
  description,
  inputSchema: buildInputSchema([]),
  source: { kind: 'script', path: `/p/${name}`, line: 1 },
  ...extra,
});

const names = (index: ReturnType<typeof createToolSearchIndex>, query: string, limit = 10) =>
  index.search(query, limit).map((match) => match.name);

describe('createToolSearchIndex', () => {
  it('finds a tool by the words of its name in any naming style', () => {
    const index = createToolSearchIndex([
      tool('Get-Widget', 'Reads one.'),
      tool('set_gadget', 'Writes one.'),
      tool('removeGizmo', 'Deletes one.'),
      tool('ExportGizmoJSON', 'Saves one.'),
    ]);
    expect(names(index, 'widget', 1)).toEqual(['Get-Widget']);
    expect(names(index, 'gadget', 1)).toEqual(['set_gadget']);
    expect(names(index, 'remove gizmo', 1)).toEqual(['removeGizmo']);
    expect(names(index, 'json', 1)).toEqual(['ExportGizmoJSON']);
  });

  it('tells near-duplicates apart by the word that differs, wherever it is', () => {
    const systems = ['jira', 'github', 'gitlab'];
    const verbs = ['create', 'get', 'update', 'delete'];
    const index = createToolSearchIndex(
      systems.flatMap((system) =>
        verbs.map((verb) => tool(`${system}_${verb}_issue`, `${verb}s an issue in ${system}.`)),
      ),
    );
    expect(names(index, 'delete a github issue', 1)).toEqual(['github_delete_issue']);
    expect(names(index, 'Updates issues in GitLab', 1)).toEqual(['gitlab_update_issue']);
  });

  it('matches the start of a word, below a whole word', () => {
    const index = createToolSearchIndex([
      tool('send_notification', 'Tells the team.'),
      tool('notif', 'A tool whose name is the whole word.'),
    ]);
    expect(names(index, 'notif')).toEqual(['notif', 'send_notification']);
    // Two letters match whole words only.
    expect(names(index, 'no')).toEqual([]);
  });

  it('searches titles, parameters and example descriptions too', () => {
    const index = createToolSearchIndex([
      tool('t1', 'One.', { title: 'Invoice printer' }),
      tool('t2', 'Two.', {
        inputSchema: buildInputSchema([
          { name: 'ProjectKey', type: 'string', description: 'The tracker board', required: true },
        ]),
      }),
      tool('t3', 'Three.', {
        inputExamples: [{ arguments: {}, description: 'Archive last year s receipts' }],
      }),
    ]);
    expect(names(index, 'invoice', 1)).toEqual(['t1']);
    expect(names(index, 'project key', 1)).toEqual(['t2']);
    expect(names(index, 'tracker board', 1)).toEqual(['t2']);
    expect(names(index, 'receipts', 1)).toEqual(['t3']);
  });

  it('reads the parameters of every parameter set once', () => {
    const index = createToolSearchIndex([
      tool('Get-Thing', 'Gets a thing.', {
        inputSchema: {
          type: 'object',
          oneOf: [
            { type: 'object', properties: { Name: { type: 'string' } } },
            { type: 'object', properties: { Identity: { type: 'string' } } },
          ],
        } as ToolDefinition['inputSchema'],
      }),
      tool('Get-Other', 'Gets another thing.'),
    ]);
    expect(names(index, 'identity', 2)).toEqual(['Get-Thing']);
  });

  it('answers nothing for a query of stopwords or punctuation, and bounds by limit', () => {
    const index = createToolSearchIndex([tool('a_b', 'The of.'), tool('widget', 'W.')]);
    expect(index.search('  the ,; of ')).toEqual([]);
    expect(index.size).toBe(2);
    const many = createToolSearchIndex(
      Array.from({ length: 30 }, (_, i) => tool(`widget_${i}`, 'A widget.')),
    );
    expect(many.search('widget', 5)).toHaveLength(5);
  });
});
