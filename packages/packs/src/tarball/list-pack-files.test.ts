import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listPackFiles } from './list-pack-files.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');

describe('listPackFiles', () => {
  it('warns, at its line, about a .toolpackignore pattern that can never match', async () => {
    const listed = await listPackFiles(path.join(fixtures, 'typo-pack'));
    expect(listed.files.map((file) => file.path)).toEqual(['readme.txt']);
    expect(listed.diagnostics).toHaveLength(1);
    expect(listed.diagnostics[0]).toMatchObject({
      severity: 'warning',
      code: 'W_IGNORE_PATTERN_NEVER_MATCHES',
      line: 4,
    });
    expect(listed.diagnostics[0]?.message).toContain('.toolpackignore:4');
  });

  it('has nothing to say about a pack without typos', async () => {
    const listed = await listPackFiles(path.join(fixtures, 'sample-pack'));
    expect(listed.diagnostics).toEqual([]);
  });
});
