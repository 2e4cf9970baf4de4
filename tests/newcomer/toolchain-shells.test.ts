// `source scripts/toolchain.sh` from bash and zsh (macOS's default shell), from any folder,
// in shells whose cd prints: a CDPATH match, a zsh chpwd hook (auto-ls, version managers).
// Either used to turn the clone's path into two lines, so the toolchain looked for
// package.json and .tools/ under a folder that does not exist and installed Node there.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pinnedPnpm = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager.split('@')[1];
const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0;

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function makeTemp(name: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-${name}-`));
  temps.push(dir);
  return dir;
}

/** Sources the toolchain in a clean shell after `setup`, and reports what it put on PATH. */
function sourceToolchain(shell: 'bash' | 'zsh', cwd: string, setup: string, script: string) {
  const args = shell === 'zsh' ? ['-f', '-c'] : ['--norc', '--noprofile', '-c'];
  const body = `${setup}\nsource ${script} || exit 9\nprintf '%s\\n' "$(command -v node)" "$(node --version)" "$(pnpm --version)" "$PWD"`;
  const home = makeTemp('home');
  const result = spawnSync(shell, [...args, body], {
    cwd,
    encoding: 'utf8',
    // A clean shell: no rc files, the system PATH. Nothing may be fetched: if the toolchain
    // tried to install, npm fails at once instead of reaching the network.
    env: {
      HOME: home,
      PATH: '/usr/local/bin:/usr/bin:/bin',
      npm_config_offline: 'true',
      npm_config_cache: path.join(home, 'npm-cache'),
    },
    timeout: 60_000,
  });
  const [node = '', nodeVersion = '', pnpm = '', pwd = ''] = result.stdout.trim().split('\n');
  return { status: result.status, stderr: result.stderr, node, nodeVersion, pnpm, pwd };
}

function expectSupportedNode(version: string) {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  expect(major === 22 ? minor >= 22 : major >= 24).toBe(true);
}

const shells = [
  { shell: 'bash' as const, skip: false, tag: '' },
  { shell: 'zsh' as const, skip: !hasZsh, tag: ' [needs zsh]' },
];

for (const { shell, skip, tag } of shells) {
  describe.skipIf(skip)(`toolchain.sh sourced from ${shell}${tag}`, () => {
    it('from a folder outside the clone, by absolute path', () => {
      const cwd = makeTemp('cwd');
      const result = sourceToolchain(shell, cwd, '', `'${root}/scripts/toolchain.sh'`);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expectSupportedNode(result.nodeVersion);
      expect(result.pnpm).toBe(pinnedPnpm);
      expect(result.pwd).toBe(cwd);
      expect(readdirSync(cwd)).toEqual([]);
    });

    it('from a subfolder of the clone, by relative path', () => {
      const result = sourceToolchain(
        shell,
        path.join(root, 'packages/cli'),
        '',
        '../../scripts/toolchain.sh',
      );
      expect([result.status, result.stderr]).toEqual([0, '']);
      expectSupportedNode(result.nodeVersion);
      expect(result.pnpm).toBe(pinnedPnpm);
    });

    it('with CDPATH naming a folder that has a scripts/ too', () => {
      const decoy = makeTemp('cdpath');
      mkdirSync(path.join(decoy, 'scripts'));
      const result = sourceToolchain(shell, root, `CDPATH='${decoy}'`, 'scripts/toolchain.sh');
      expect([result.status, result.stderr]).toEqual([0, '']);
      expectSupportedNode(result.nodeVersion);
      expect(result.pnpm).toBe(pinnedPnpm);
      expect(readdirSync(decoy)).toEqual(['scripts']);
      expect(readdirSync(path.join(decoy, 'scripts'))).toEqual([]);
    });

    // Only zsh has chpwd hooks.
    if (shell === 'zsh') {
      it('with a chpwd hook that prints (oh-my-zsh auto-ls, nvm)', () => {
        const cwd = makeTemp('cwd');
        const result = sourceToolchain(
          shell,
          cwd,
          'chpwd() { echo chpwd-says-hello; }',
          `'${root}/scripts/toolchain.sh'`,
        );
        expect([result.status, result.stderr]).toEqual([0, '']);
        expectSupportedNode(result.nodeVersion);
        expect(result.pnpm).toBe(pinnedPnpm);
        // Before the fix the toolchain made a folder named after the hook's output here.
        expect(readdirSync(cwd)).toEqual([]);
      });
    }
  });
}
