import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { packFolder } from './index.ts';

let root: string;
let project: string;
let bashrc: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-pack-folder-'));
  project = path.join(root, 'project');
  mkdirSync(path.join(project, 'scripts'), { recursive: true });
  mkdirSync(path.join(project, 'dist'));
  writeFileSync(
    path.join(project, 'toolpack.yaml'),
    'name: greeter\nversion: 1.0.0\ndescription: Says hello.\nsources:\n  - scripts: scripts\n',
  );
  writeFileSync(
    path.join(project, 'scripts', 'hello.sh'),
    '#!/usr/bin/env bash\n# DESCRIPTION "Says hello."\necho hello\n',
    { mode: 0o755 },
  );
  bashrc = path.join(root, 'bashrc');
  writeFileSync(bashrc, 'export PATH\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

// What a pack granted `project/dist` plants where `mcp pack pack --out dist/` writes.
it('replaces a link planted at the tarball’s name instead of writing through it', async () => {
  const tarball = path.join(project, 'dist', 'greeter-1.0.0.tgz');
  symlinkSync(bashrc, tarball);
  // Written as before (in place), the tarball's bytes land in the link's target.
  writeFileSync(tarball, 'tarball bytes');
  expect(readFileSync(bashrc, 'utf8')).toBe('tarball bytes');
  writeFileSync(bashrc, 'export PATH\n');

  const result = await packFolder({ cwd: project, dir: '.', out: 'dist/' });
  expect(result.packed?.file).toBe(path.join('dist', 'greeter-1.0.0.tgz'));
  expect(readFileSync(bashrc, 'utf8')).toBe('export PATH\n');
  expect(lstatSync(tarball).isFile()).toBe(true);
  expect(readFileSync(tarball).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  expect(readdirSync(path.join(project, 'dist'))).toEqual(['greeter-1.0.0.tgz']);
});
