import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcp } from './testing/run-mcp.ts';

const manifest = JSON.parse(
  readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8'),
) as { version: string; bugs: { url: string } };

// A real unexpected error: `mcp pack pack --out` under a path whose parent is a regular file
// makes the tarball's folder impossible to create, and pack does not expect that (the error
// reaches the CLI as Node's own, not as a ToolpackError).
describe('an error Toolpack did not expect', () => {
  let dir: string;
  const packInto = (env: NodeJS.ProcessEnv = {}) =>
    runMcp(['pack', 'pack', '--out', 'a-file/hello.tgz'], {
      cwd: dir,
      env: { ...process.env, HOME: dir, TOOLPACK_DEBUG: '', ...env },
    });

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-internal-error-'));
    mkdirSync(path.join(dir, 'scripts'));
    const script = path.join(dir, 'scripts', 'hello.sh');
    writeFileSync(script, '#!/bin/sh\n# DESCRIPTION "Says hello."\necho hello\n');
    chmodSync(script, 0o755);
    writeFileSync(
      path.join(dir, 'toolpack.yaml'),
      'name: hello-pack\nversion: 1.0.0\ndescription: Says hello.\nsources:\n  - scripts: scripts\n',
    );
    writeFileSync(path.join(dir, 'a-file'), 'not a folder\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one line: a bug in this version, where to report it, how to see the stack; exit 1', () => {
    const { code, stderr } = packInto();
    expect(code).toBe(1);
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`internal error (a bug in Toolpack ${manifest.version}`);
    expect(lines[0]).toContain(path.join(dir, 'a-file'));
    expect(lines[0]).toContain(`please report it at ${manifest.bugs.url}`);
    expect(lines[0]).toContain('TOOLPACK_DEBUG=1');
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('adds the stack with TOOLPACK_DEBUG=1', () => {
    const { code, stderr } = packInto({ TOOLPACK_DEBUG: '1' });
    expect(code).toBe(1);
    expect(stderr).toContain(`internal error (a bug in Toolpack ${manifest.version}`);
    expect(stderr).toContain(`please report it at ${manifest.bugs.url}, with this stack:\n`);
    expect(stderr).toMatch(/^\s+at /m);
  });
});
