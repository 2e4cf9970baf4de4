import { describe, expect, it } from 'vitest';
import { describeToolFolder } from './describe-tool-folder.ts';

/** A `search-issues` folder with this metadata.yaml and a shell script. */
function describeMetadata(metadata: string) {
  const folder = '/project/tools/search-issues';
  return describeToolFolder({
    folder,
    metadataPath: `${folder}/metadata.yaml`,
    metadata,
    scriptPath: `${folder}/script.sh`,
    script: 'echo "{}"\n',
    scripts: ['script.sh'],
  });
}

const HEAD = `name: search_issues
description: Searches the issue tracker
inputSchema:
  type: object
  properties:
    query: { type: string }
    limit: { type: integer, minimum: 1 }
  required: [query]
`;

describe('describeToolFolder: examples, longRunning and progressResetsTimeout', () => {
  it('reads examples in order (dotbot input as arguments) and the two opt-ins', async () => {
    const result = await describeMetadata(`${HEAD}examples:
  - description: Five issues about jira
    arguments: { query: jira, limit: 5 }
  - input:
      query: crash
longRunning: true
progress_resets_timeout: true
`);
    expect(result.diagnostics).toEqual([]);
    expect(result.tools[0]).toMatchObject({
      inputExamples: [
        { arguments: { query: 'jira', limit: 5 }, description: 'Five issues about jira' },
        { arguments: { query: 'crash' } },
      ],
      longRunning: true,
      progressResetsTimeout: true,
    });
  });

  it('leaves out each example it cannot use with a located warning, and still serves the tool', async () => {
    const result = await describeMetadata(`${HEAD}examples:
  - just a sentence
  - description: no arguments
  - arguments: { query: 7 }
  - arguments: { query: ok, limit: 0 }
  - arguments: { query: fine }
    description: Kept
`);
    expect(result.tools[0]?.inputExamples).toEqual([
      { arguments: { query: 'fine' }, description: 'Kept' },
    ]);
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['W_EXAMPLE_IGNORED', 10],
      ['W_EXAMPLE_IGNORED', 11],
      ['W_EXAMPLE_IGNORED', 12],
      ['W_EXAMPLE_IGNORED', 13],
    ]);
    expect(result.diagnostics[2]?.message).toMatch(/\/query must be string/);
    expect(result.diagnostics[3]?.message).toMatch(/\/limit must be >= 1/);
    expect(result.diagnostics.every((d) => d.hint !== undefined)).toBe(true);
  });

  it('refuses an opt-in that is not true or false, naming its line', async () => {
    const result = await describeMetadata(`${HEAD}longRunning: yes please\n`);
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'E_METADATA_FIELD',
        line: 9,
        message: 'longRunning must be true or false, not string "yes please".',
      }),
    ]);
  });

  it('keeps false opt-ins off the tool and warns when both spellings are set', async () => {
    const result = await describeMetadata(`${HEAD}longRunning: false\nlong_running: true\n`);
    expect(result.tools[0]).not.toHaveProperty('longRunning');
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([['W_DUPLICATE_KEY', 10]]);
  });
});
