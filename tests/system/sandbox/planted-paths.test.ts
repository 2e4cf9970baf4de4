// Issue 30, red-team pass: what a pack plants in a folder it may write, for an unconfined
// process to follow later. The `planter` pack (granted `project/out`, installed from a
// registry with `mcp pack add --yes`) leaves a symbolic link or a FIFO where `mcp serve
// --audit out/audit.jsonl` will open its audit log at its next start, and rewrites that log
// (and the `--policy` file) while the server uses them. Through the built `mcp`: the server
// refuses to follow what was planted (E_AUDIT_FILE) and the pack cannot touch either file of
// a running server; with the sandbox off (the same pack and files), it rewrites both, so the
// refusal is not a broken fixture. That the old open would have appended to the link's
// target is shown in packages/server/src/audit/audit-log.test.ts.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox } from '@toolpack/containment';
import {
  createBuiltMcpEnv,
  findBuiltMcpProblem,
  runBuiltMcp,
  startBuiltServe,
  type BuiltServe,
} from './built-mcp.ts';

const linux = process.platform === 'linux';
const sandbox = describeSandbox({});
const registry = path.join(import.meta.dirname, 'fixtures', 'registry');
const BASHRC = 'export PATH\n';

type Mode = 'confined' | 'unconfined';

interface Attempt {
  attempt: string;
  done: boolean;
  detail: string;
}

interface Project {
  dir: string;
  bashrc: string;
  audit: string;
  env(mode: Mode): Record<string, string>;
}

let root: string;

async function createProject(name: string): Promise<Project> {
  const base = path.join(root, name);
  const dir = path.join(base, 'project');
  const home = path.join(base, 'home');
  const runtime = path.join(base, 'run');
  for (const folder of [home, path.join(dir, 'scripts'), path.join(dir, 'out')])
    mkdirSync(folder, { recursive: true });
  mkdirSync(runtime, { mode: 0o700 });
  writeFileSync(path.join(dir, 'toolpack.yaml'), 'sources:\n  - scripts: scripts\n');
  writeFileSync(
    path.join(dir, 'scripts', 'own.sh'),
    '#!/usr/bin/env bash\n# DESCRIPTION "A tool of the project itself."\necho "own tool ok"\n',
    { mode: 0o755 },
  );
  const bashrc = path.join(home, '.bashrc');
  writeFileSync(bashrc, BASHRC);
  chmodSync(bashrc, 0o644);
  const env = (mode: Mode) =>
    createBuiltMcpEnv({
      HOME: home,
      XDG_RUNTIME_DIR: runtime,
      TOOLPACK_CACHE_DIR: path.join(base, 'cache'),
      ...(mode === 'unconfined' ? { TOOLPACK_SANDBOX: 'off' } : {}),
    });
  const added = await runBuiltMcp(['pack', 'add', 'planter', '--yes', '--registry', registry], {
    cwd: dir,
    env: env('confined'),
  });
  if (added.code !== 0)
    throw new Error(`mcp pack add planter --yes failed (${added.code}):\n${added.stderr}`);
  return { dir, bashrc, audit: path.join(dir, 'out', 'audit.jsonl'), env };
}

async function call(
  serve: BuiltServe,
  name: string,
  args: Record<string, unknown>,
): Promise<Attempt> {
  const { text, isError } = await serve.callTool(name, args);
  expect(isError, `${name} answered an error: ${text}\n${serve.stderr()}`).toBe(false);
  return JSON.parse(text) as Attempt;
}

/** Plants with one server run, then starts `mcp serve --audit out/audit.jsonl` and calls a tool. */
async function plantThenAudit(
  project: Project,
  plant: (serve: BuiltServe) => Promise<Attempt>,
): Promise<{ planted: Attempt; started: string }> {
  const first = await startBuiltServe([], { cwd: project.dir, env: project.env('confined') });
  let planted: Attempt;
  try {
    planted = await plant(first);
  } finally {
    await first.close();
  }
  // The next start audits to the planted path and serves one call, which it would log.
  let started: string;
  try {
    const next = await startBuiltServe(['--audit', 'out/audit.jsonl'], {
      cwd: project.dir,
      env: project.env('confined'),
    });
    await next.callTool('own', {});
    await next.close();
    started = `served\n${next.stderr()}`;
  } catch (error) {
    started = `refused\n${error instanceof Error ? error.message : String(error)}`;
  }
  return { planted, started };
}

beforeAll(() => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-planted-'));
});

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!linux)(
  'a pack granted project/out and the audit log the server writes there, through the built mcp [needs Linux]',
  { timeout: 180_000 },
  () => {
    it.skipIf(!sandbox.available)(
      'a symbolic link planted at the audit file (to ~/.bashrc) is refused at the next start, never appended to [needs bubblewrap]',
      async () => {
        const project = await createProject('link');
        const { planted, started } = await plantThenAudit(project, (serve) =>
          call(serve, 'planter_plant_link', { link: project.audit, target: project.bashrc }),
        );
        // The folder is the pack's to write: planting is allowed; following it is what is not.
        expect(planted.done, planted.detail).toBe(true);
        expect(started).toMatch(/^refused\n/);
        expect(started).toContain('Refusing to write the audit log');
        expect(started).toContain('is a symbolic link');
        expect(readFileSync(project.bashrc, 'utf8')).toBe(BASHRC);
      },
    );

    it.skipIf(!sandbox.available)(
      'a FIFO planted at the audit file is refused at the next start instead of blocking it [needs bubblewrap]',
      async () => {
        const project = await createProject('fifo');
        const { planted, started } = await plantThenAudit(project, (serve) =>
          call(serve, 'planter_plant_fifo', { path: project.audit }),
        );
        expect(planted.done, planted.detail).toBe(true);
        expect(started).toMatch(/^refused\n/);
        expect(started).toContain('Refusing to write the audit log');
        expect(started).toContain('is not a regular file');
      },
    );

    const POLICY = 'deny: [planter_plant_fifo]\n';

    /** The pack rewrites the audit log and the --policy file of the running server. */
    async function rewriteServerFiles(mode: Mode) {
      const project = await createProject(`rewrite-${mode}`);
      const policy = path.join(project.dir, 'out', 'policy.yaml');
      writeFileSync(policy, POLICY);
      const serve = await startBuiltServe(
        ['--audit', 'out/audit.jsonl', '--policy', 'out/policy.yaml'],
        { cwd: project.dir, env: project.env(mode) },
      );
      try {
        const own = await serve.callTool('own', {});
        expect(own.text).toContain('own tool ok');
        const audit = await call(serve, 'planter_overwrite', { path: project.audit, text: '' });
        const loosened = await call(serve, 'planter_overwrite', { path: policy, text: '{}\n' });
        await serve.close();
        return {
          audit,
          loosened,
          log: readFileSync(project.audit, 'utf8'),
          policy: readFileSync(policy, 'utf8'),
          stderr: serve.stderr(),
        };
      } finally {
        await serve.close();
      }
    }

    it.skipIf(!sandbox.available)(
      'confined [needs bubblewrap]: the pack cannot rewrite the audit log or the policy file of the running server, in the folder it may write',
      async () => {
        const seen = await rewriteServerFiles('confined');
        expect(seen.stderr).not.toContain('W_SANDBOX_UNAVAILABLE');
        expect(seen.audit.done, seen.audit.detail).toBe(false);
        expect(seen.log).toContain('"tool":"own"');
        expect(seen.loosened.done, seen.loosened.detail).toBe(false);
        expect(seen.policy).toBe(POLICY);
      },
    );

    it('unconfined (TOOLPACK_SANDBOX=off): the same pack empties the audit log and the policy', async () => {
      const seen = await rewriteServerFiles('unconfined');
      expect(seen.stderr).toContain('W_SANDBOX_UNAVAILABLE');
      expect(seen.audit, seen.audit.detail).toMatchObject({ done: true });
      expect(seen.log).not.toContain('"tool":"own"');
      expect(seen.loosened, seen.loosened.detail).toMatchObject({ done: true });
      expect(seen.policy).toBe('{}\n');
    });
  },
);
