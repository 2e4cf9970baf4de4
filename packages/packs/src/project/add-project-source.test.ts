import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addProjectSource } from './add-project-source.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolpack-add-source-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('addProjectSource', () => {
  it('creates toolpack.yaml when there is none, then adds to it', async () => {
    const file = path.join(dir, 'toolpack.yaml');
    expect(await addProjectSource(dir, { key: 'scripts', path: '.' })).toEqual({
      file,
      created: true,
    });
    expect(await addProjectSource(dir, { key: 'tools', path: 'tools' })).toEqual({
      file,
      created: false,
    });
    expect(await readFile(file, 'utf8')).toBe('sources:\n  - scripts: .\n  - tools: tools\n');
    // Written beside and renamed: no temporary file is left.
    expect(await readdir(dir)).toEqual(['toolpack.yaml']);
  });

  it('leaves a file that is not valid YAML as it was', async () => {
    const file = path.join(dir, 'toolpack.yaml');
    await writeFile(file, 'sources: [\n');
    await expect(addProjectSource(dir, { key: 'scripts', path: '.' })).rejects.toThrow(
      /not valid YAML/,
    );
    expect(await readFile(file, 'utf8')).toBe('sources: [\n');
  });
});
