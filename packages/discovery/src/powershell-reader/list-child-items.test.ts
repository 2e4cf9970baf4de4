import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listChildItems } from './list-child-items.ts';
import type { ListChildItemsInput } from './list-child-items.ts';

// Every expectation here is what pwsh 7.6.9's Get-ChildItem printed for the same tree.
describe('listChildItems', () => {
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'toolpack-gci-'));
    for (const folder of ['Public/Sub', 'Public/z.ps1dir', 'Private', '.hid'])
      mkdirSync(join(root, folder), { recursive: true });
    for (const file of [
      'Public/b.ps1',
      'Public/a.ps1',
      'Public/C.PS1',
      'Public/x.txt',
      'Public/.e.ps1',
      'Public/Sub/d.ps1',
      'Public/Sub/e.Tests.ps1',
      'Private/p.ps1',
      '.hid/h.ps1',
    ])
      writeFileSync(join(root, file), '');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const names = async (input: Omit<ListChildItemsInput, 'budget'>): Promise<string[]> =>
    (await listChildItems({ ...input, budget: { remaining: 1000 } })).items.map((item) =>
      item.fullName.slice(root.length + 1),
    );

  it('lists a wildcard leaf in its folder only, without regard to case', async () => {
    expect(await names({ paths: [`${root}/Public/*.ps1`] })).toEqual([
      'Public/a.ps1',
      'Public/b.ps1',
      'Public/C.PS1',
    ]);
  });

  it('recurses only with -Recurse, matching the leaf or the filter at every depth', async () => {
    expect((await names({ paths: [`${root}/Public/*.ps1`], recurse: true })).sort()).toEqual([
      'Public/C.PS1',
      'Public/Sub/d.ps1',
      'Public/Sub/e.Tests.ps1',
      'Public/a.ps1',
      'Public/b.ps1',
    ]);
    expect(await names({ paths: [`${root}/Public`], filter: '*.ps1', recurse: true })).toEqual([
      'Public/a.ps1',
      'Public/b.ps1',
      'Public/C.PS1',
      'Public/Sub/d.ps1',
      'Public/Sub/e.Tests.ps1',
    ]);
    expect(await names({ paths: [`${root}/Public`], filter: '*.ps1' })).toEqual([
      'Public/a.ps1',
      'Public/b.ps1',
      'Public/C.PS1',
    ]);
  });

  it('applies -Include only to a wildcard path or with -Recurse, and -Exclude always', async () => {
    expect(await names({ paths: [`${root}/Public`], include: ['*.ps1'] })).toEqual([]);
    expect(await names({ paths: [`${root}/Public/*`], include: ['*.ps1'] })).toEqual([
      'Public/a.ps1',
      'Public/b.ps1',
      'Public/C.PS1',
    ]);
    expect(
      (
        await names({
          paths: [`${root}/Public`],
          include: ['*.ps1'],
          exclude: ['*.Tests.ps1'],
          recurse: true,
        })
      ).sort(),
    ).toEqual(['Public/C.PS1', 'Public/Sub/d.ps1', 'Public/a.ps1', 'Public/b.ps1']);
    expect(await names({ paths: [`${root}/Public/*.ps1`], exclude: ['a*'] })).toEqual([
      'Public/b.ps1',
      'Public/C.PS1',
    ]);
  });

  it('leaves hidden items out unless forced, and lists folders before files', async () => {
    expect(await names({ paths: [`${root}/Public`] })).toEqual([
      'Public/Sub',
      'Public/z.ps1dir',
      'Public/a.ps1',
      'Public/b.ps1',
      'Public/C.PS1',
      'Public/x.txt',
    ]);
    expect(await names({ paths: [`${root}/Public`], force: true })).toContain('Public/.e.ps1');
    expect(await names({ paths: [root], recurse: true })).not.toContain('.hid/h.ps1');
    expect(await names({ paths: [`${root}/Public`], only: 'file' })).not.toContain('Public/Sub');
  });

  it('lists several paths in order, and nothing for a missing or wrongly cased folder', async () => {
    expect(await names({ paths: [`${root}/Public/*.ps1`, `${root}/Private/*.ps1`] })).toEqual([
      'Public/a.ps1',
      'Public/b.ps1',
      'Public/C.PS1',
      'Private/p.ps1',
    ]);
    expect(await names({ paths: [`${root}/Nope/*.ps1`] })).toEqual([]);
    expect(await names({ paths: [`${root}/public/*.ps1`] })).toEqual([]);
  });

  it('stops at the budget and says so', async () => {
    const budget = { remaining: 3 };
    const result = await listChildItems({ paths: [root], recurse: true, budget });
    expect(result.truncated).toBe(true);
    expect(budget.remaining).toBe(0);
    const ample = await listChildItems({
      paths: [root],
      recurse: true,
      budget: { remaining: 100 },
    });
    expect(ample.truncated).toBe(false);
  });
});
