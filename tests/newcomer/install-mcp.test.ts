// The README's install command: scripts/install-mcp.sh puts a plain `mcp` into <prefix>/bin
// that a NEW shell runs (nothing sourced, only the system PATH and that bin folder), on a
// supported Node even when the machine's own is missing or too old, and --uninstall takes
// away exactly what it added.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkNewcomerPath } from './newcomer-walk.ts';

const root = path.resolve(import.meta.dirname, '../..');
const script = path.join(root, 'scripts/install-mcp.sh');
const cliVersion = (
  JSON.parse(readFileSync(path.join(root, 'packages/cli/package.json'), 'utf8')) as {
    version: string;
  }
).version;
const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0;
const posix = process.platform !== 'win32';

let work = '';
let prefix = '';
let home = '';
let before: string[] = [];
let installed: SpawnSyncReturns<string>;

/** Every path under `dir`, relative, sorted: what uninstall must give back. */
function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

function runScript(args: string[], env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  const { NODE_OPTIONS: _ignored, ...rest } = env;
  return spawnSync('bash', [script, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: rest,
    timeout: 280_000,
  });
}

/** `command` in a new shell that has only what a fresh login would: HOME and a plain PATH. */
function inNewShell(shell: 'bash' | 'zsh', command: string): SpawnSyncReturns<string> {
  const args = shell === 'zsh' ? ['-f', '-c', command] : ['--norc', '--noprofile', '-c', command];
  return spawnSync(
    'env',
    ['-i', `HOME=${home}`, `PATH=${prefix}/bin:/usr/bin:/bin`, shell, ...args],
    {
      cwd: home,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
}

beforeAll(() => {
  if (!posix) return;
  work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-install-mcp-'));
  home = path.join(work, 'home');
  prefix = path.join(work, 'prefix');
  mkdirSync(home);
  // Someone else's files in the prefix: the install leaves them, the uninstall too.
  mkdirSync(path.join(prefix, 'bin'), { recursive: true });
  writeFileSync(path.join(prefix, 'bin', 'other-tool'), '#!/bin/sh\necho other\n', { mode: 0o755 });
  before = listTree(prefix);
  // The user's PATH has no usable Node (only the system's, too old or none): the install
  // must bring one into the prefix rather than point the launcher into this clone.
  installed = runScript(['--prefix', prefix], {
    ...process.env,
    PATH: '/usr/local/bin:/usr/bin:/bin',
  });
}, 300_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!posix)('scripts/install-mcp.sh [needs a POSIX shell]', () => {
  it('installs, and says where mcp is and how to get it on PATH', () => {
    expect(installed.stderr).not.toMatch(/error/i);
    expect(installed.status).toBe(0);
    expect(installed.stdout).toContain(`Installed mcp ${cliVersion}: ${prefix}/bin/mcp`);
    expect(installed.stdout).toContain(`${prefix}/bin is not on your PATH`);
    expect(installed.stdout).toContain('scripts/install-mcp.sh --uninstall');
  });

  it('a new bash runs mcp --version from the prefix alone', () => {
    const result = inNewShell('bash', 'command -v mcp && mcp --version');
    expect([result.status, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toBe(`${prefix}/bin/mcp\n${cliVersion}\n`);
  });

  it.skipIf(!hasZsh)('a new zsh runs mcp --version from the prefix alone [needs zsh]', () => {
    const result = inNewShell('zsh', 'mcp --version');
    expect([result.status, result.stderr, result.stdout]).toEqual([0, '', `${cliVersion}\n`]);
  });

  it('the installed mcp does not depend on this clone, and runs a TypeScript tool', () => {
    const launcher = readFileSync(path.join(prefix, 'bin', 'mcp'), 'utf8');
    expect(launcher).not.toContain(root);
    const project = path.join(home, 'project');
    mkdirSync(project);
    writeFileSync(
      path.join(project, 'greet.ts'),
      [
        '// DESCRIPTION "Greets someone."',
        '// PARAM name AS string DESCRIPTION "Who to greet."',
        "let input: string = '';",
        'for await (const chunk of process.stdin) input += chunk;',
        'const { name } = JSON.parse(input) as { name: string };',
        'console.log(JSON.stringify({ greeting: `hello ${name}` }));',
      ].join('\n'),
    );
    const result = inNewShell(
      'bash',
      `cd '${project}' && mcp call greet --script-root . --arg name=newcomer`,
    );
    expect([result.status, result.stderr]).toEqual([0, '']);
    expect(result.stdout.trim()).toBe('{"greeting":"hello newcomer"}');
  });

  it(
    'walks the newcomer path in a new bash: new tool, check, gallery, pack add, list, config, pack remove',
    { timeout: 180_000 },
    async () => {
      await walkNewcomerPath({ prefix, home, work });
    },
  );

  it('refuses to overwrite an mcp it did not write', () => {
    const other = path.join(work, 'other-prefix');
    mkdirSync(path.join(other, 'bin'), { recursive: true });
    writeFileSync(path.join(other, 'bin', 'mcp'), '#!/bin/sh\necho mine\n', { mode: 0o755 });
    const result = runScript(['--prefix', other], process.env);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^install-mcp: .*bin\/mcp exists and was not written by this script/,
    );
    expect(readFileSync(path.join(other, 'bin', 'mcp'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
    expect(readdirSync(other)).toEqual(['bin']);
  });

  it('--uninstall removes exactly what the install added', () => {
    expect(statSync(path.join(prefix, 'share', 'toolpack')).isDirectory()).toBe(true);
    const result = runScript(['--uninstall', '--prefix', prefix], process.env);
    expect([result.status, result.stdout]).toEqual([0, `Removed mcp from ${prefix}.\n`]);
    expect(listTree(prefix)).toEqual(before);
    expect(inNewShell('bash', 'mcp --version').status).toBe(127);
  });
});
