// Issue 30, item 1: a pack's `interpreters:`. Installed with `mcp pack add --yes` through the
// built `mcp`, a pack whose `.sh` interpreter runs its own code first must not become the
// interpreter of the project's own `.sh` tool (run unconfined) nor of another pack's; its `.x`
// interpreter naming a folder outside the pack (the user's HOME) must not have it bound into
// its sandbox to read a key there; and an update whose only change is a new interpreter must
// stop for approval. Each is shown beside the same attempt succeeding without the protection:
// the interpreter in the project's own map (what merging the packs' maps made it), the sandbox
// off, and an update with no new interpreter going through silently.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox } from '@toolpack/containment';
import {
  createBuiltMcpEnv,
  findBuiltMcpProblem,
  runBuiltMcp,
  startBuiltServe,
  type BuiltMcpRun,
} from './built-mcp.ts';

const linux = process.platform === 'linux';
const sandbox = describeSandbox({});
const fixtures = path.join(import.meta.dirname, 'fixtures', 'interpreters');
const unique = `${process.pid}x${Math.floor(Math.random() * 1e9)}`;
const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\ninterpreterproofkey${unique}\n-----END OPENSSH PRIVATE KEY-----`;
const HIJACK_SH = ['/bin/sh', '-c', 'echo "HIJACKED ${TOOLPACK_TOOL}"; exec bash "$0"'];

let root: string;
let home: string;
let registry: string;
let project: string;
let added: BuiltMcpRun;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return createBuiltMcpEnv({ HOME: home, TOOLPACK_CACHE_DIR: path.join(root, 'cache'), ...extra });
}

async function mcp(args: readonly string[], cwd: string, extra: Record<string, string> = {}) {
  return runBuiltMcp(args, { cwd, env: env(extra) });
}

function readLock(dir: string): {
  packs: Record<string, { version: string; interpreters?: Record<string, string[]> }>;
} {
  return JSON.parse(readFileSync(path.join(dir, 'toolpack.lock'), 'utf8'));
}

beforeAll(async () => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-interpreters-proof-'));
  home = path.join(root, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), `${KEY}\n`, { mode: 0o600 });
  // The hijack pack names this run's HOME in its `.x` interpreter, as an attacker who knows
  // the user's home folder would.
  registry = path.join(root, 'registry');
  cpSync(path.join(fixtures, 'registry'), registry, { recursive: true });
  const hijackManifest = path.join(registry, 'hijack', 'toolpack.yaml');
  writeFileSync(hijackManifest, readFileSync(hijackManifest, 'utf8').replaceAll('@HOME@', home));
  project = path.join(root, 'project');
  cpSync(path.join(fixtures, 'project'), project, { recursive: true });
  added = await mcp(['pack', 'add', 'hijack', '--yes', '--registry', registry], project);
  if (added.code !== 0) throw new Error(`mcp pack add hijack failed:\n${added.stderr}`);
  const victim = await mcp(['pack', 'add', 'victim', '--yes', '--registry', registry], project);
  if (victim.code !== 0) throw new Error(`mcp pack add victim failed:\n${victim.stderr}`);
}, 120_000);

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!linux)(
  "a pack's interpreters through the built mcp [needs Linux]",
  { timeout: 120_000 },
  () => {
    it('are shown before approval, recorded in toolpack.lock and shown by mcp pack audit', async () => {
      expect(added.stderr).toContain(
        `interpreter: runs its .sh tools with ${JSON.stringify(HIJACK_SH)}`,
      );
      expect(added.stderr).toContain(`interpreter: runs its .x tools with ["/bin/sh","-c",`);
      expect(added.stderr).toContain(JSON.stringify(home));
      const lock = readLock(project);
      expect(lock.packs.hijack?.interpreters?.['.sh']).toEqual(HIJACK_SH);
      expect(lock.packs.hijack?.interpreters?.['.x']?.at(-1)).toBe(home);
      expect(lock.packs.victim?.interpreters).toBeUndefined();
      const info = await mcp(['pack', 'info', 'hijack', '--registry', registry], project);
      expect(info.stdout, info.stderr).toContain(
        `interpreter: runs its .sh tools with ${JSON.stringify(HIJACK_SH)}`,
      );
      const audit = await mcp(['pack', 'audit'], project);
      expect(audit.stdout).toContain(
        `interpreter: runs its .sh tools with ${JSON.stringify(HIJACK_SH)}`,
      );
    });

    it("run neither the project's own .sh tool nor another pack's, only the pack's own", async () => {
      const serve = await startBuiltServe([], { cwd: project, env: env() });
      try {
        const own = await serve.callTool('own', {});
        expect(own.text, serve.stderr()).toContain('own ran');
        expect(own.text).not.toContain('HIJACKED');
        const victim = await serve.callTool('victim_hello', {});
        expect(victim.text, serve.stderr()).toContain('victim ran');
        expect(victim.text).not.toContain('HIJACKED');
        // The interpreter works, where it belongs: the pack's own .sh tool.
        const mine = await serve.callTool('hijack_mine', {});
        expect(mine.text, serve.stderr()).toContain('HIJACKED hijack_mine');
        expect(mine.text).toContain('mine ran');
      } finally {
        await serve.close();
      }
    });

    it("without the protection: in the project's own map (what merging made it), it runs the project's .sh tool", async () => {
      const merged = path.join(root, 'merged');
      cpSync(path.join(fixtures, 'project'), merged, { recursive: true });
      writeFileSync(
        path.join(merged, 'toolpack.yaml'),
        `${readFileSync(path.join(merged, 'toolpack.yaml'), 'utf8')}interpreters:\n  .sh: ${JSON.stringify(HIJACK_SH)}\n`,
      );
      const own = await mcp(['call', 'own'], merged);
      expect(own.stdout, own.stderr).toContain('HIJACKED own');
    });

    it.skipIf(!sandbox.available)(
      'confined [needs bubblewrap]: an interpreter naming a folder outside the pack does not get it bound',
      async () => {
        const serve = await startBuiltServe([], { cwd: project, env: env() });
        try {
          const steal = await serve.callTool('hijack_steal', {});
          expect(steal.text, serve.stderr()).not.toContain(`interpreterproofkey${unique}`);
          expect(steal.text).toMatch(/no key|No such file/);
        } finally {
          await serve.close();
        }
        // Without the sandbox the same tool reads the key: the fixture is a real attack.
        const open = await startBuiltServe([], {
          cwd: project,
          env: env({ TOOLPACK_SANDBOX: 'off' }),
        });
        try {
          const steal = await open.callTool('hijack_steal', {});
          expect(steal.text, open.stderr()).toContain(`interpreterproofkey${unique}`);
        } finally {
          await open.close();
        }
      },
    );

    it('an update that only adds an interpreter stops for approval; one that adds nothing does not', async () => {
      const dir = path.join(root, 'update');
      mkdirSync(dir);
      const from = (version: string) => path.join(fixtures, `update-${version}`);
      const first = await mcp(['pack', 'add', 'shifty', '--yes', '--registry', from('1.0.0')], dir);
      expect(first.code, first.stderr).toBe(0);

      const refused = await mcp(['pack', 'update', '--registry', from('1.1.0')], dir);
      expect(refused.code, refused.stderr).not.toBe(0);
      expect(refused.stderr).toContain('needs your approval and there is no one to ask');
      expect(refused.stderr).toContain(`run its .sh tools with ${JSON.stringify(HIJACK_SH)}`);
      expect(readLock(dir).packs.shifty?.version).toBe('1.0.0');
      expect(
        readFileSync(path.join(dir, '.toolpack', 'packs', 'shifty', 'toolpack.yaml'), 'utf8'),
      ).toContain('version: 1.0.0');

      // --allow grants no interpreter either.
      const allowed = await mcp(
        ['pack', 'update', '--registry', from('1.1.0'), '--allow', 'network,subprocess'],
        dir,
      );
      expect(allowed.code, allowed.stderr).not.toBe(0);
      expect(allowed.stderr).toContain('asks for more than --allow grants (run its .sh tools with');
      expect(readLock(dir).packs.shifty?.version).toBe('1.0.0');

      // The same update without the new interpreter goes through with no one asked.
      const silent = await mcp(['pack', 'update', '--registry', from('1.0.1')], dir);
      expect(silent.code, silent.stderr).toBe(0);
      expect(readLock(dir).packs.shifty?.version).toBe('1.0.1');

      const approved = await mcp(['pack', 'update', '--yes', '--registry', from('1.1.0')], dir);
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stderr).toContain('More than you approved before:');
      expect(approved.stderr).toContain(`+ run its .sh tools with ${JSON.stringify(HIJACK_SH)}`);
      const lock = readLock(dir);
      expect(lock.packs.shifty?.version).toBe('1.1.0');
      expect(lock.packs.shifty?.interpreters).toEqual({ '.sh': HIJACK_SH });
    });

    it('a lock written before interpreters were locked approved none: they are not used until an install asks', async () => {
      const old = path.join(root, 'old-lock');
      cpSync(project, old, { recursive: true });
      const lockFile = path.join(old, 'toolpack.lock');
      const lock = readLock(old);
      delete lock.packs.hijack?.interpreters;
      writeFileSync(lockFile, JSON.stringify(lock, null, 2));
      const listed = await mcp(['list'], old);
      expect(listed.stderr + listed.stdout).toContain('W_PACK_NOT_APPROVED');
      const mine = await mcp(['call', 'hijack_mine'], old, { TOOLPACK_SANDBOX: 'off' });
      expect(mine.stdout, mine.stderr).toContain('mine ran');
      expect(mine.stdout).not.toContain('HIJACKED');
      const asked = await mcp(['pack', 'install'], old);
      expect(asked.code, asked.stderr).not.toBe(0);
      expect(asked.stderr).toContain('needs your approval');
      expect(readLock(old).packs.hijack?.interpreters).toBeUndefined();
      const approved = await mcp(['pack', 'install', '--yes'], old);
      expect(approved.code, approved.stderr).toBe(0);
      expect(readLock(old).packs.hijack?.interpreters?.['.sh']).toEqual(HIJACK_SH);
    });
  },
);
