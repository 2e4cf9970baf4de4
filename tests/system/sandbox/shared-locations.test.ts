// Issue 30, attacks 2 to 5: nothing a sandboxed pack can write is read, run, loaded or
// connected to by an unconfined process, and nothing an unconfined process listens on or
// caches is reachable from a sandbox. A pack granted the whole project and the temp folder
// (`squatter`, installed from a registry with `mcp pack add --yes`) tries, through the built
// `mcp`: to replace the project's .git with one whose core.fsmonitor runs a command at the
// user's next `git status`; to rewrite the project's own tool script, which the server runs
// unconfined; to put its socket in place of the project's PowerShell host channel and take
// its token; to connect to the host's .NET diagnostics port or PowerShell host pipe; and to
// plant an entry in Node's compile cache. Confined, each fails; with the sandbox off (the
// same pack, the same files), each succeeds, so a failure cannot pass for a broken fixture.
// The .NET and PowerShell listeners are off in Toolpack's hosts whatever the sandbox: what
// proves they were there to take is a pwsh started as the host used to be.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
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
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox } from '@toolpack/containment';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { settle } from '../system-helpers.ts';
import {
  builtMcpBin,
  createBuiltMcpEnv,
  findBuiltMcpProblem,
  runBuiltMcp,
  startBuiltServe,
  type BuiltServe,
} from './built-mcp.ts';

const linux = process.platform === 'linux';
const sandbox = describeSandbox({});
const hasGit = spawnSync('git', ['--version']).status === 0;
const registry = path.join(import.meta.dirname, 'fixtures', 'registry');
const unique = `${process.pid}x${Math.floor(Math.random() * 1e9)}`;
const PAYLOAD = `rewritten-by-squatter-${unique}`;

type Mode = 'confined' | 'unconfined';

interface Attempt {
  attempt: string;
  done: boolean;
  detail: string;
  hijacked?: number;
}

/** One project with the squatter pack, its own temp folder (TMPDIR) and runtime folder. */
interface Project {
  dir: string;
  home: string;
  systemTemp: string;
  runtime: string;
  env(mode: Mode): Record<string, string>;
}

let root: string;

async function createProject(name: string): Promise<Project> {
  const base = path.join(root, name);
  const dir = path.join(base, 'project');
  const home = path.join(base, 'home');
  const systemTemp = path.join(base, 'tmp');
  const runtime = path.join(base, 'run');
  for (const folder of [home, systemTemp, path.join(dir, 'scripts'), path.join(dir, 'out')])
    mkdirSync(folder, { recursive: true });
  mkdirSync(runtime, { mode: 0o700 });
  chmodSync(systemTemp, 0o1777);
  // The project's own `.x` interpreter is a launcher script in the project: it runs unconfined.
  writeFileSync(
    path.join(dir, 'toolpack.yaml'),
    'sources:\n  - scripts: scripts\ninterpreters:\n  .x: [bash, launcher/run-x.sh]\n',
  );
  mkdirSync(path.join(dir, 'launcher'));
  writeFileSync(path.join(dir, 'launcher', 'run-x.sh'), 'exec bash "$@"\n');
  writeFileSync(
    path.join(dir, 'scripts', 'own.sh'),
    '#!/usr/bin/env bash\n# DESCRIPTION "A tool of the project itself."\necho "own tool ok"\n',
    { mode: 0o755 },
  );
  writeFileSync(
    path.join(dir, 'scripts', 'Get-Own.ps1'),
    "<#\n.SYNOPSIS\nA PowerShell tool of the project itself.\n#>\nparam()\n'own pwsh ok'\n",
  );
  writeFileSync(path.join(dir, 'out', 'scratch.sh'), 'echo scratch\n');
  const env = (mode: Mode) =>
    createBuiltMcpEnv({
      HOME: home,
      TMPDIR: systemTemp,
      XDG_RUNTIME_DIR: runtime,
      TOOLPACK_CACHE_DIR: path.join(base, 'cache'),
      GIT_CONFIG_NOSYSTEM: '1',
      ...(mode === 'unconfined' ? { TOOLPACK_SANDBOX: 'off' } : {}),
    });
  if (hasGit) {
    const git = spawnSync('git', ['init', '-q', '.'], { cwd: dir, env: env('confined') });
    if (git.status !== 0) throw new Error(`git init failed: ${git.stderr.toString()}`);
  }
  const added = await runBuiltMcp(['pack', 'add', 'squatter', '--yes', '--registry', registry], {
    cwd: dir,
    env: env('confined'),
  });
  if (added.code !== 0)
    throw new Error(`mcp pack add squatter --yes failed (${added.code}):\n${added.stderr}`);
  return { dir, home, systemTemp, runtime, env };
}

async function call(
  serve: BuiltServe,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Attempt> {
  const { text, isError } = await serve.callTool(name, args);
  expect(isError, `${name} answered an error: ${text}\n${serve.stderr()}`).toBe(false);
  return JSON.parse(text) as Attempt;
}

/** `git status` as the user runs it in the project, and whether the planted command ran. */
function runGitStatus(project: Project, marker: string): boolean {
  spawnSync('git', ['status', '--short'], { cwd: project.dir, env: project.env('confined') });
  return existsSync(marker);
}

beforeAll(() => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-shared-'));
});

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!linux)(
  'a pack granted the project and temp, through the built mcp [needs Linux]',
  { timeout: 180_000 },
  () => {
    async function attemptProjectWrites(mode: Mode) {
      const project = await createProject(`writes-${mode}`);
      const marker = path.join(root, `fsmonitor-ran-${mode}`);
      const serve = await startBuiltServe([], { cwd: project.dir, env: project.env(mode) });
      try {
        const swap = hasGit ? await call(serve, 'squatter_swap_git', { marker }) : undefined;
        const rewrite = await call(serve, 'squatter_rewrite_tool', {
          script: 'scripts/own.sh',
          payload: PAYLOAD,
        });
        const launcher = await call(serve, 'squatter_rewrite_tool', {
          script: 'launcher/run-x.sh',
          payload: PAYLOAD,
        });
        const scratch = await call(serve, 'squatter_rewrite_tool', {
          script: 'out/scratch.sh',
          payload: PAYLOAD,
        });
        const own = await serve.callTool('own', {});
        await serve.close();
        return {
          swap,
          rewrite,
          launcher,
          scratch,
          own,
          fsmonitorRan: hasGit ? runGitStatus(project, marker) : undefined,
          project,
          stderr: serve.stderr(),
        };
      } finally {
        await serve.close();
      }
    }

    it.skipIf(!sandbox.available)(
      'confined [needs bubblewrap]: .git cannot be swapped and the own tool cannot be rewritten, while the rest of the project is writable',
      async () => {
        const seen = await attemptProjectWrites('confined');
        expect(seen.stderr).not.toContain('W_SANDBOX_UNAVAILABLE');
        // The pack may write the project: a folder that is not protected took the same write.
        expect(seen.scratch, seen.scratch.detail).toMatchObject({ done: true });
        expect(readFileSync(path.join(seen.project.dir, 'out', 'scratch.sh'), 'utf8')).toContain(
          PAYLOAD,
        );
        expect(seen.rewrite.done, seen.rewrite.detail).toBe(false);
        expect(seen.launcher.done, seen.launcher.detail).toBe(false);
        expect(readFileSync(path.join(seen.project.dir, 'launcher', 'run-x.sh'), 'utf8')).toBe(
          'exec bash "$@"\n',
        );
        expect(seen.own.text).toContain('own tool ok');
        expect(seen.own.text).not.toContain(PAYLOAD);
        if (hasGit) {
          expect(seen.swap?.done, seen.swap?.detail).toBe(false);
          expect(existsSync(path.join(seen.project.dir, '.git-moved'))).toBe(false);
          expect(seen.fsmonitorRan, 'git status ran the planted fsmonitor').toBe(false);
        }
      },
    );

    it('unconfined (TOOLPACK_SANDBOX=off): the swapped .git runs its command at git status, and the server runs the rewritten tool', async () => {
      const seen = await attemptProjectWrites('unconfined');
      expect(seen.stderr).toContain('W_SANDBOX_UNAVAILABLE');
      expect(seen.rewrite, seen.rewrite.detail).toMatchObject({ done: true });
      expect(seen.launcher, seen.launcher.detail).toMatchObject({ done: true });
      expect(seen.own.text).toContain(PAYLOAD);
      if (hasGit) {
        expect(seen.swap, seen.swap?.detail).toMatchObject({ done: true });
        expect(seen.fsmonitorRan, 'git status ran the planted fsmonitor').toBe(true);
      }
    });

    async function attemptHostChannel(mode: Mode) {
      const project = await createProject(`channel-${mode}`);
      const folders = `${project.runtime},${project.systemTemp}`;
      const serve = await startBuiltServe([], { cwd: project.dir, env: project.env(mode) });
      try {
        await call(serve, 'squatter_watch_host_socket', { folders });
        // The project's own PowerShell tool starts the unconfined host, which connects to its
        // channel socket with its token.
        const own = await serve.callTool('Get_Own', {});
        const captured = await call(serve, 'squatter_captured_token');
        return { own, captured, stderr: serve.stderr() };
      } finally {
        await serve.close();
      }
    }

    describe.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} the PowerShell host's channel`, () => {
      it.skipIf(!sandbox.available)(
        "confined [needs bubblewrap]: the pack's JS child never sees the host's socket, so never gets its token",
        async () => {
          const seen = await attemptHostChannel('confined');
          expect(seen.own.isError, seen.own.text).toBe(false);
          expect(seen.own.text).toContain('own pwsh ok');
          expect(seen.captured).toMatchObject({ done: false, detail: '', hijacked: 0 });
        },
      );

      it('unconfined (TOOLPACK_SANDBOX=off): the same child takes the socket over and reads the token', async () => {
        const seen = await attemptHostChannel('unconfined');
        expect(seen.captured.hijacked).toBeGreaterThan(0);
        expect(seen.captured.done, seen.captured.detail).toBe(true);
        expect(seen.captured.detail).toMatch(/"type":"hello".*"token"/);
      });
    });

    /** A pwsh as Toolpack's host started before issue 30: no switches, the shared temp folder. */
    function startOldStyleHost(project: Project): ChildProcess {
      return spawn(
        'pwsh',
        ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', 'Start-Sleep 60'],
        {
          env: { ...project.env('confined'), TMPDIR: project.systemTemp },
          stdio: 'ignore',
        },
      );
    }

    async function attemptHostListeners(mode: Mode) {
      const project = await createProject(`listeners-${mode}`);
      const folders = `${project.runtime},${project.systemTemp}`;
      const serve = await startBuiltServe([], { cwd: project.dir, env: project.env(mode) });
      let old: ChildProcess | undefined;
      try {
        const own = await serve.callTool('Get_Own', {});
        const ofHost = await call(serve, 'squatter_find_listeners', { folders });
        old = startOldStyleHost(project);
        // Both listeners: .NET's port as the runtime starts, PowerShell's pipe as its host does.
        const isListening = () => {
          const names = readdirSync(project.systemTemp);
          return (
            names.some((name) => name.startsWith('dotnet-diagnostic-')) &&
            names.some((name) => name.startsWith('CoreFxPipe_PSHost'))
          );
        };
        const oldListens = await settle(isListening, 30_000);
        const ofOld = await call(serve, 'squatter_find_listeners', { folders });
        return { own, ofHost, ofOld, oldListens };
      } finally {
        old?.kill('SIGKILL');
        await serve.close();
      }
    }

    describe.skipIf(!hasPwsh)(
      `${PWSH_TEST_TAG} .NET's diagnostics port and PowerShell's host pipe`,
      () => {
        it.skipIf(!sandbox.available)(
          'confined [needs bubblewrap]: the pack finds none, neither of the host nor of a pwsh listening in the shared temp folder',
          async () => {
            const seen = await attemptHostListeners('confined');
            expect(seen.own.text).toContain('own pwsh ok');
            expect(seen.oldListens).toBe(true);
            expect(seen.ofHost).toMatchObject({ done: false, detail: '' });
            expect(seen.ofOld).toMatchObject({ done: false, detail: '' });
          },
        );

        it('unconfined (TOOLPACK_SANDBOX=off): the host listens on nothing, while a pwsh started as the host was is reached on both', async () => {
          const seen = await attemptHostListeners('unconfined');
          expect(seen.own.text).toContain('own pwsh ok');
          // Toolpack's host, unconfined and in the shared temp folder, leaves nothing to reach.
          expect(seen.ofHost).toMatchObject({ done: false, detail: '' });
          expect(seen.oldListens).toBe(true);
          expect(seen.ofOld.done, seen.ofOld.detail).toBe(true);
          expect(seen.ofOld.detail).toMatch(/dotnet-diagnostic-/);
          expect(seen.ofOld.detail).toMatch(/CoreFxPipe_PSHost/);
        });
      },
    );

    /**
     * A file every `mcp` run loads once the compile cache is on: the chunk the CLI's main
     * entry re-exports (bin.mjs imports main-*.mjs, which re-exports from the real one).
     */
    function findLoadedCliChunk(): string {
      const dist = path.join(path.dirname(builtMcpBin), '..', 'dist');
      const entry = /main-[\w-]+\.mjs/.exec(readFileSync(path.join(dist, 'bin.mjs'), 'utf8'))?.[0];
      if (entry === undefined) throw new Error('bin.mjs imports no main chunk');
      const inner = /from "\.\/(main-[\w-]+\.mjs)"/.exec(
        readFileSync(path.join(dist, entry), 'utf8'),
      )?.[1];
      return path.join(dist, inner ?? entry);
    }

    async function attemptCompileCache(mode: Mode) {
      const project = await createProject(`cache-${mode}`);
      const name = `planted-${unique}`;
      const marker = path.join(root, `forged-ran-${mode}`);
      const target = findLoadedCliChunk();
      const bytes = readFileSync(target);
      const serve = await startBuiltServe([], { cwd: project.dir, env: project.env(mode) });
      let plant: Attempt;
      let forged: Attempt;
      try {
        plant = await call(serve, 'squatter_plant_compile_cache', { name });
        // The attacker knows the published file: its length and CRC-32 are all it needs.
        forged = await call(serve, 'squatter_plant_forged_cache', {
          target,
          length: bytes.length,
          crc: crc32(bytes),
          marker,
        });
      } finally {
        await serve.close();
      }
      // The next run, with Node telling which compile cache it reads.
      const next = await runBuiltMcp(['list'], {
        cwd: project.dir,
        env: { ...project.env(mode), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
      });
      const ranInNext = existsSync(marker);
      // A Node that turns the compile cache on as the CLI did before (`enableCompileCache()`
      // with no folder: `<tmpdir>/node-compile-cache`) and loads that file.
      const old = spawnSync(
        process.execPath,
        [
          '-e',
          `const m = require('node:module'); m.enableCompileCache(); process.stdout.write(m.getCompileCacheDir() + '\\n'); import(${JSON.stringify(pathToFileURL(target).href)}).catch(() => {});`,
        ],
        { env: { ...project.env(mode), NODE_OPTIONS: '' }, encoding: 'utf8' },
      );
      return {
        plant,
        forged,
        name,
        next,
        ranInNext,
        defaultCache: old.stdout.split('\n')[0] ?? '',
        ranInOld: existsSync(marker),
        project,
      };
    }

    it.skipIf(!sandbox.available)(
      "confined [needs bubblewrap]: a forged entry stays in the pack's own temp folder, and neither the next mcp run nor a Node using the default cache runs it",
      async () => {
        const seen = await attemptCompileCache('confined');
        expect(seen.forged.done, seen.forged.detail).toBe(true);
        expect(seen.forged.detail.startsWith('/tmp/node-compile-cache/')).toBe(true);
        expect(seen.plant).toMatchObject({ done: true, detail: '/tmp/node-compile-cache' });
        const inShared = path.join(seen.project.systemTemp, 'node-compile-cache');
        expect(existsSync(path.join(inShared, seen.name))).toBe(false);
        expect(seen.next.code, seen.next.stderr).toBe(0);
        expect(seen.ranInNext).toBe(false);
        expect(seen.ranInOld).toBe(false);
        const privateCache = path.join(seen.project.runtime, 'toolpack', 'node-compile-cache');
        expect(existsSync(privateCache)).toBe(true);
        const reads = seen.next.stderr
          .split('\n')
          .filter((line) => line.includes('[compile cache] reading cache from'));
        expect(reads.length).toBeGreaterThan(0);
        for (const line of reads) expect(line).toContain(privateCache);
        expect(seen.next.stderr).not.toContain(inShared);
        // The runtime folder is the user's alone, and each run's folder (with the pack's own
        // temp folder in it) is gone once that run has ended.
        const runtimeFolder = path.join(seen.project.runtime, 'toolpack');
        expect(statSync(runtimeFolder).mode & 0o777).toBe(0o700);
        expect(readdirSync(runtimeFolder).filter((name) => name.startsWith('run-'))).toEqual([]);
      },
    );

    it('unconfined (TOOLPACK_SANDBOX=off): the forged entry lands in the default compile cache and runs as the CLI file there; the next mcp run, reading only its private cache, does not run it', async () => {
      const seen = await attemptCompileCache('unconfined');
      expect(seen.forged.done, seen.forged.detail).toBe(true);
      const inShared = path.join(seen.project.systemTemp, 'node-compile-cache');
      expect(existsSync(path.join(inShared, seen.name))).toBe(true);
      expect(seen.defaultCache.startsWith(inShared)).toBe(true);
      expect(seen.next.code, seen.next.stderr).toBe(0);
      expect(seen.ranInNext).toBe(false);
      expect(seen.ranInOld, 'the forged code ran as the CLI file').toBe(true);
    });
  },
);
