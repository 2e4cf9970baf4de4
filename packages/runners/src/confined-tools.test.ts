// Confined tools (`tool.source.sandbox`) of every runner kind against a hostile pack laid out
// as an installed one (`.toolpack/packs/hostile/`): what it did not declare is refused or
// contained under the OS sandbox, and each refusal is shown to be real by the same tool
// reaching the same thing with TOOLPACK_SANDBOX=off, so no test here can pass vacuously.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeSandbox } from '@toolpack/containment';
import {
  LEAST_PERMISSIONS,
  normalizePermissions,
  type DiscoveredTool,
  type PackPermissions,
  type ToolInvocation,
} from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveHostScriptPath } from './asset-paths.ts';
import { findExecutable } from './find-executable.ts';
import { createToolRunner, type ToolRunner, type ToolRunnerOptions } from './index.ts';
import {
  locateStartupProfile,
  prepareStartupProfile,
  PROFILE_HOME_TARGET,
  type StartupProfileOptions,
} from './pwsh/startup-profile.ts';
import {
  findMarkedProcesses,
  firstText,
  hasProc,
  isProcessAlive,
  listDescendants,
  makeTool,
  waitFor,
} from './testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/hostile-pack/', import.meta.url));
const PACK_ROOT = '.toolpack/packs/hostile';
const TOKEN = 'token-the-server-was-given';
const GREETING = 'hello from the port';
// Asked without TOOLPACK_SANDBOX: whether bwrap works on this machine at all.
const sandbox = describeSandbox({});
const hasPython = spawnSync('python3', ['--version'], { stdio: 'ignore' }).status === 0;

interface Kind {
  name: string;
  /** Why this kind's tests cannot run here, or undefined when they can. */
  missing: string | undefined;
  invocation: ToolInvocation;
  /** Argument names as the tool takes them (PowerShell parameters are capitalised). */
  toArguments(args: Record<string, unknown>): Record<string, unknown>;
  /** Whether a process the tool left behind lives on after the call until its host ends. */
  keepsHost: boolean;
}

const capitalise = (args: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(args).map(([key, value]) => [key[0]?.toUpperCase() + key.slice(1), value]),
  );

const KINDS: Kind[] = [
  {
    name: 'process script (python3)',
    missing: hasPython ? undefined : 'python3',
    invocation: { runner: 'process', scriptPath: `${PACK_ROOT}/hostile.py`, extension: '.py' },
    toArguments: (args) => args,
    keepsHost: false,
  },
  {
    name: 'JS module (child process)',
    missing: undefined,
    invocation: {
      runner: 'node-worker',
      modulePath: `${PACK_ROOT}/hostile-tools.mjs`,
      exportName: 'hostile',
    },
    toArguments: (args) => args,
    keepsHost: true,
  },
  {
    name: `PowerShell script ${PWSH_TEST_TAG}`,
    missing: hasPwsh ? undefined : 'pwsh',
    invocation: { runner: 'pwsh', mode: 'script', scriptPath: `${PACK_ROOT}/Invoke-Hostile.ps1` },
    toArguments: capitalise,
    keepsHost: true,
  },
];

const GRANTED: PackPermissions = normalizePermissions({
  filesystem: { read: ['project'], write: ['project/out'] },
  network: { access: 'any', hosts: [] },
  env: ['HOSTILE_TOKEN'],
  subprocess: true,
});

let scratch: string;
let projectRoot: string;
let home: string;
let outside: string;
let server: Server;
let port: number;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolpack-confined-'));
  projectRoot = join(scratch, 'project');
  home = join(scratch, 'home');
  outside = join(scratch, 'outside');
  cpSync(fixtures, join(projectRoot, PACK_ROOT), { recursive: true });
  writeFileSync(join(projectRoot, 'data.txt'), 'project data');
  mkdirSync(join(projectRoot, 'out'));
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'FAKE PRIVATE KEY');
  mkdirSync(outside);
  server = createServer((socket) => socket.end(GREETING));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((closed) => server.close(closed));
  rmSync(scratch, { recursive: true, force: true });
});

function hostileTool(kind: Kind, permissions: PackPermissions | undefined): DiscoveredTool {
  const tool = makeTool({ name: 'hostile', invocation: kind.invocation });
  return permissions === undefined
    ? tool
    : {
        ...tool,
        source: { ...tool.source, pack: 'hostile', sandbox: { root: PACK_ROOT, permissions } },
      };
}

/**
 * Runs `body` with a runner made under these variables (HOME is the fake home with its key,
 * HOSTILE_TOKEN a variable the project-wide allow-list passes), then closes the runner.
 */
async function withRunner(
  variables: Record<string, string>,
  body: (runner: ToolRunner) => Promise<void>,
  options: Partial<ToolRunnerOptions> = {},
): Promise<void> {
  const saved = new Map<string, string | undefined>();
  const set = { HOME: home, HOSTILE_TOKEN: TOKEN, ...variables };
  for (const [name, value] of Object.entries(set)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  const runner = createToolRunner({ projectRoot, envAllowList: ['HOSTILE_TOKEN'], ...options });
  try {
    await body(runner);
  } finally {
    await runner.close();
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

interface Attempt {
  ok: boolean;
  value?: unknown;
  error?: string;
}

async function attempt(
  runner: ToolRunner,
  kind: Kind,
  tool: DiscoveredTool,
  args: Record<string, unknown>,
): Promise<Attempt> {
  const result = await runner.call(tool, kind.toArguments(args), { timeoutMs: 60_000 });
  if (result.isError === true || result.structuredContent === undefined)
    throw new Error(`the tool did not answer: ${firstText(result)}`);
  return result.structuredContent as unknown as Attempt;
}

/** What the runner's confined PowerShell hosts use: the profile in Toolpack's own cache. */
function profileOptions(): StartupProfileOptions {
  return {
    pwshPath: findExecutable('pwsh', process.env as Record<string, string>) ?? 'pwsh',
    hostScriptPath: resolveHostScriptPath(),
    environment: { PATH: process.env.PATH ?? '' },
    startTimeoutMs: 60_000,
  };
}

function profileFile(): string {
  return locateStartupProfile(profileOptions());
}

const sandboxMissing = sandbox.available ? undefined : `bwrap: ${sandbox.reason}`;

describe.each(KINDS)('a confined $name', (kind) => {
  const missing = kind.missing ?? sandboxMissing;
  const needs = `[needs ${kind.missing ?? 'bwrap'}]`;

  it.skipIf(missing !== undefined)(
    `cannot read the home key or the ungranted project, write outside or reach the port in the sandbox; with TOOLPACK_SANDBOX=off the same tool can ${needs}`,
    async () => {
      const key = join(home, '.ssh', 'id_ed25519');
      const tool = hostileTool(kind, LEAST_PERMISSIONS);
      const tryAll = async (runner: ToolRunner, suffix: string) => ({
        key: await attempt(runner, kind, tool, { attempt: 'read', path: key }),
        project: await attempt(runner, kind, tool, {
          attempt: 'read',
          path: join(projectRoot, 'data.txt'),
        }),
        write: await attempt(runner, kind, tool, {
          attempt: 'write',
          path: join(outside, `${suffix}.txt`),
        }),
        port: await attempt(runner, kind, tool, { attempt: 'connect', port }),
      });

      await withRunner({ TOOLPACK_SANDBOX: 'auto' }, async (runner) => {
        const tried = await tryAll(runner, 'sandboxed');
        expect(tried.key.ok, JSON.stringify(tried.key)).toBe(false);
        expect(tried.project.ok, JSON.stringify(tried.project)).toBe(false);
        expect(tried.write.ok, JSON.stringify(tried.write)).toBe(false);
        expect(existsSync(join(outside, 'sandboxed.txt'))).toBe(false);
        expect(tried.port.ok, JSON.stringify(tried.port)).toBe(false);
      });
      await withRunner({ TOOLPACK_SANDBOX: 'off' }, async (runner) => {
        const tried = await tryAll(runner, 'unsandboxed');
        expect(tried.key).toEqual({ ok: true, value: 'FAKE PRIVATE KEY' });
        expect(tried.project).toEqual({ ok: true, value: 'project data' });
        expect(tried.write).toEqual({ ok: true, value: 'written' });
        expect(existsSync(join(outside, 'unsandboxed.txt'))).toBe(true);
        expect(tried.port).toEqual({ ok: true, value: GREETING });
      });
    },
  );

  it.skipIf(missing !== undefined)(
    `cannot write in Toolpack's startup-profile cache, which it never sees; with TOOLPACK_SANDBOX=off the same tool can ${needs}`,
    async () => {
      // A file beside the profiles, not a profile other tests' hosts read.
      const planted = join(dirname(profileFile()), `planted-${process.pid}.profile`);
      const tool = hostileTool(kind, LEAST_PERMISSIONS);
      try {
        await withRunner({ TOOLPACK_SANDBOX: 'auto' }, async (runner) => {
          const tried = await attempt(runner, kind, tool, { attempt: 'write', path: planted });
          expect(tried.ok, JSON.stringify(tried)).toBe(false);
          expect(existsSync(planted)).toBe(false);
        });
        await withRunner({ TOOLPACK_SANDBOX: 'off' }, async (runner) => {
          const tried = await attempt(runner, kind, tool, { attempt: 'write', path: planted });
          expect(tried).toEqual({ ok: true, value: 'written' });
          expect(existsSync(planted)).toBe(true);
        });
      } finally {
        rmSync(planted, { force: true });
      }
    },
    60_000,
  );

  it.skipIf(kind.missing !== undefined)(
    `sees only its own pack's variables, not the project-wide allow-list's, with or without the OS sandbox; an unconfined tool sees them [needs ${kind.missing ?? 'nothing'}]`,
    async () => {
      const read = { attempt: 'env', name: 'HOSTILE_TOKEN' };
      for (const setting of ['auto', 'off']) {
        await withRunner({ TOOLPACK_SANDBOX: setting }, async (runner) => {
          const undeclared = await attempt(
            runner,
            kind,
            hostileTool(kind, LEAST_PERMISSIONS),
            read,
          );
          const unconfined = await attempt(runner, kind, hostileTool(kind, undefined), read);
          const declared = await attempt(runner, kind, hostileTool(kind, GRANTED), read);
          expect({ setting, undeclared, unconfined, declared }).toEqual({
            setting,
            undeclared: { ok: true, value: null },
            unconfined: { ok: true, value: TOKEN },
            declared: { ok: true, value: TOKEN },
          });
        });
      }
    },
  );

  it.skipIf(missing !== undefined || !hasProc)(
    `ends what it leaves running with its sandbox; with TOOLPACK_SANDBOX=off (and no containment) it lives on ${needs} [needs /proc]`,
    async () => {
      const tool = hostileTool(kind, LEAST_PERMISSIONS);
      // Without TOOLPACK_CONTAINMENT=off, the process-group or namespace containment would end
      // a leftover too: this shows what the sandbox does on its own.
      const sandboxed = `toolpack-linger-sandboxed-${process.pid}`;
      const unsandboxed = `toolpack-linger-unsandboxed-${process.pid}`;
      try {
        await withRunner(
          { TOOLPACK_SANDBOX: 'auto', TOOLPACK_CONTAINMENT: 'off' },
          async (runner) => {
            const started = await attempt(runner, kind, tool, {
              attempt: 'linger',
              marker: sandboxed,
            });
            expect(started).toEqual({ ok: true, value: 'started' });
            if (!kind.keepsHost)
              expect(await waitFor(() => findMarkedProcesses(sandboxed).length === 0, 5_000)).toBe(
                true,
              );
          },
        );
        expect(await waitFor(() => findMarkedProcesses(sandboxed).length === 0, 5_000)).toBe(true);

        await withRunner(
          { TOOLPACK_SANDBOX: 'off', TOOLPACK_CONTAINMENT: 'off' },
          async (runner) => {
            const started = await attempt(runner, kind, tool, {
              attempt: 'linger',
              marker: unsandboxed,
            });
            expect(started).toEqual({ ok: true, value: 'started' });
          },
        );
        expect(await waitFor(() => findMarkedProcesses(unsandboxed).length > 0, 5_000)).toBe(true);
      } finally {
        for (const pid of [...findMarkedProcesses(sandboxed), ...findMarkedProcesses(unsandboxed)])
          process.kill(pid, 'SIGKILL');
      }
    },
  );

  it.skipIf(missing !== undefined)(
    `may do what it was granted in the sandbox: read the project, write its granted folder only, reach the port, read its declared variable ${needs}`,
    async () => {
      const tool = hostileTool(kind, GRANTED);
      await withRunner({ TOOLPACK_SANDBOX: 'auto' }, async (runner) => {
        const made = join(projectRoot, 'out', `${kind.invocation.runner}.txt`);
        const elsewhere = join(projectRoot, `${kind.invocation.runner}.txt`);
        const tried = {
          project: await attempt(runner, kind, tool, {
            attempt: 'read',
            path: join(projectRoot, 'data.txt'),
          }),
          granted: await attempt(runner, kind, tool, { attempt: 'write', path: made }),
          ungranted: await attempt(runner, kind, tool, { attempt: 'write', path: elsewhere }),
          port: await attempt(runner, kind, tool, { attempt: 'connect', port }),
          env: await attempt(runner, kind, tool, { attempt: 'env', name: 'HOSTILE_TOKEN' }),
          key: await attempt(runner, kind, tool, {
            attempt: 'read',
            path: join(home, '.ssh', 'id_ed25519'),
          }),
        };
        expect(tried.project).toEqual({ ok: true, value: 'project data' });
        expect(tried.granted).toEqual({ ok: true, value: 'written' });
        expect(existsSync(made)).toBe(true);
        expect(tried.ungranted.ok, JSON.stringify(tried.ungranted)).toBe(false);
        expect(existsSync(elsewhere)).toBe(false);
        expect(tried.port).toEqual({ ok: true, value: GREETING });
        expect(tried.env).toEqual({ ok: true, value: TOKEN });
        expect(tried.key.ok, JSON.stringify(tried.key)).toBe(false);
      });
    },
  );

  it.skipIf(kind.missing !== undefined)(
    `is refused under requireSandbox when the sandbox cannot be had, and never starts; unconfined tools still run [needs ${kind.missing ?? 'nothing'}]`,
    async () => {
      const target = join(outside, `required-${kind.invocation.runner}.txt`);
      await withRunner(
        { TOOLPACK_SANDBOX: 'off' },
        async (runner) => {
          const result = await runner.call(
            hostileTool(kind, LEAST_PERMISSIONS),
            kind.toArguments({ attempt: 'write', path: target }),
          );
          expect(result.isError).toBe(true);
          expect(firstText(result)).toContain('E_SANDBOX_REQUIRED');
          expect(firstText(result)).toContain('TOOLPACK_SANDBOX=off');
          expect(firstText(result)).toContain('Install bubblewrap');
          expect(firstText(result)).toContain('--require-sandbox');
          expect(existsSync(target)).toBe(false);
          expect(runner.stats()).toMatchObject({ workers: 0, pwshHosts: 0 });

          const unconfined = await attempt(runner, kind, hostileTool(kind, undefined), {
            attempt: 'env',
            name: 'HOSTILE_TOKEN',
          });
          expect(unconfined).toEqual({ ok: true, value: TOKEN });
        },
        { requireSandbox: true },
      );
    },
  );
});

describe('confined PowerShell and JS module tools', () => {
  it.skipIf(!hasPwsh || sandboxMissing !== undefined || !hasProc)(
    `warm and run on a host and a child per pack, beside the shared host of project tools; stats, reload and close cover every host ${PWSH_TEST_TAG} [needs pwsh, bwrap, /proc]`,
    async () => {
      const [, moduleKind, scriptKind] = KINDS as [Kind, Kind, Kind];
      const read = scriptKind.toArguments({ attempt: 'env', name: 'HOSTILE_TOKEN' });
      const psModule = (permissions: PackPermissions): DiscoveredTool => {
        const tool = makeTool({
          name: 'read_secret',
          invocation: {
            runner: 'pwsh',
            mode: 'module',
            modulePath: `${PACK_ROOT}/HostileModule.psm1`,
            functionName: 'Read-Secret',
          },
        });
        return {
          ...tool,
          source: { ...tool.source, pack: 'hostile', sandbox: { root: PACK_ROOT, permissions } },
        };
      };
      const key = join(home, '.ssh', 'id_ed25519');
      const ownFile = join(projectRoot, PACK_ROOT, 'hostile.py');
      const before = new Set(listDescendants());
      let started: number[] = [];
      await withRunner({ TOOLPACK_SANDBOX: 'auto' }, async (runner) => {
        await runner.warm([
          psModule(LEAST_PERMISSIONS),
          hostileTool(moduleKind, LEAST_PERMISSIONS),
        ]);
        expect(runner.stats()).toMatchObject({ pwshHosts: 1, pwshHostPid: undefined, workers: 1 });

        const refused = await runner.call(psModule(LEAST_PERMISSIONS), { Path: key });
        expect(refused.structuredContent).toMatchObject({ ok: false, reads: 1 });
        const own = await runner.call(psModule(LEAST_PERMISSIONS), { Path: ownFile });
        expect(own.structuredContent).toMatchObject({ ok: true, reads: 2 });

        await runner.call(hostileTool(scriptKind, undefined), read);
        await runner.call(hostileTool(scriptKind, GRANTED), read);
        expect(runner.stats()).toMatchObject({ pwshHosts: 3, pwshRestarts: 0 });
        expect(runner.stats().pwshHostPid).toBeTypeOf('number');

        runner.reloadModules();
        const afresh = await runner.call(psModule(LEAST_PERMISSIONS), { Path: ownFile });
        expect(afresh.structuredContent).toMatchObject({ ok: true, reads: 1 });
        expect(
          (await runner.call(hostileTool(scriptKind, GRANTED), read)).structuredContent,
        ).toEqual({ ok: true, value: TOKEN });
        started = listDescendants().filter((pid) => !before.has(pid));
      });
      // Three hosts and a module child, each under its bwrap: all gone with close().
      expect(started.length).toBeGreaterThanOrEqual(4);
      expect(await waitFor(() => started.every((pid) => !isProcessAlive(pid)), 5_000)).toBe(true);
    },
  );
});

describe('a confined PowerShell host’s startup profile', () => {
  it.skipIf(!hasPwsh || sandboxMissing !== undefined)(
    `is Toolpack's own, at the path pwsh reads, read-only: a pack tool cannot overwrite, append to, replace or remove it ${PWSH_TEST_TAG} [needs pwsh, bwrap]`,
    async () => {
      const [, , scriptKind] = KINDS as [Kind, Kind, Kind];
      const recorded = await prepareStartupProfile(profileOptions());
      expect(recorded).toBe(profileFile());
      const source = readFileSync(profileFile());
      // The sandbox's HOME (containment's SANDBOX_HOME), where pwsh looks for its profile.
      const inside = `/home/toolpack/${PROFILE_HOME_TARGET}`;
      const tool = hostileTool(scriptKind, GRANTED);
      await withRunner({ TOOLPACK_SANDBOX: 'auto' }, async (runner) => {
        const size = await attempt(runner, scriptKind, tool, { attempt: 'size', path: inside });
        expect(size).toEqual({ ok: true, value: source.length });
        for (const how of ['write', 'append', 'replace', 'remove']) {
          const tried = await attempt(runner, scriptKind, tool, { attempt: how, path: inside });
          expect(tried.ok, `${how}: ${JSON.stringify(tried)}`).toBe(false);
        }
        expect(await attempt(runner, scriptKind, tool, { attempt: 'size', path: inside })).toEqual(
          size,
        );
      });
      expect(readFileSync(profileFile()).equals(source)).toBe(true);
    },
    120_000,
  );
});
