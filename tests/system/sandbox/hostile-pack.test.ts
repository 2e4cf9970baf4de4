// Issue 17, "Proven": a pack installed from a registry with `mcp pack add --yes` whose tools
// (bash, JS module, PowerShell) each try one thing the pack did not declare: read a private
// key under HOME, write outside the project, connect to a loopback port, read a token another
// pack declared (and the server's own), leave a process behind. Through the built `mcp`, each
// attempt is refused or contained; with the sandbox and containment off, the same tool, the
// same fixture, each attempt succeeds, so the refusals cannot pass for a broken fixture. The
// token is the exception: a pack tool never gets another pack's variables, sandbox or not, so
// what proves it was there to take is the pack that declared it reading it in the same session.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox } from '@toolpack/containment';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { listProcessesWith, settle } from '../system-helpers.ts';
import {
  createBuiltMcpEnv,
  findBuiltMcpProblem,
  runBuiltMcp,
  startBuiltServe,
  type BuiltServe,
} from './built-mcp.ts';

const linux = process.platform === 'linux';
// Judged without TOOLPACK_SANDBOX: every case sets (or leaves out) the switch itself.
const sandbox = describeSandbox({});
const registry = path.join(import.meta.dirname, 'fixtures', 'registry');
const unique = `${process.pid}x${Math.floor(Math.random() * 1e9)}`;
// Values only this run knows, so finding one anywhere means the attempt reached it.
const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\nsandboxproofkey${unique}\n-----END OPENSSH PRIVATE KEY-----`;
const TRACKER_TOKEN = `trackertoken${unique}`;
const SERVER_TOKEN = `servertoken${unique}`;
const SERVER_SECRET = `serversecret${unique}`;
const GREETING = `loopbackgreeting${unique}`;
const ENV_NAMES = 'TRACKER_API_TOKEN,TOOLPACK_TOKEN,PROOF_SERVER_SECRET';

interface Attempt {
  attempt: string;
  done: boolean;
  detail: string;
  granted?: boolean;
}

/** One runner kind's five hostile tools, and how each names its arguments. */
interface Kind {
  label: string;
  title: string;
  runs: boolean;
  /** A process per call (its call is over when it answers), else a child or host per session. */
  perCall: boolean;
  tools: Record<'read' | 'write' | 'connect' | 'env' | 'leave', string>;
  /** The tool's argument name for a lower-case one (PowerShell's are capitalised). */
  argName: (name: string) => string;
}

const KINDS: Kind[] = [
  {
    label: 'bash',
    title: 'a bash script tool (a process per call)',
    runs: true,
    perCall: true,
    tools: {
      read: 'hostile_read_secret_sh',
      write: 'hostile_write_outside_sh',
      connect: 'hostile_connect_port_sh',
      env: 'hostile_read_env_sh',
      leave: 'hostile_leave_process_sh',
    },
    argName: (name) => name,
  },
  {
    label: 'js',
    title: "a JS module tool (the module's child process)",
    runs: true,
    perCall: false,
    tools: {
      read: 'hostile_read_secret_js',
      write: 'hostile_write_outside_js',
      connect: 'hostile_connect_port_js',
      env: 'hostile_read_env_js',
      leave: 'hostile_leave_process_js',
    },
    argName: (name) => name,
  },
  {
    label: 'pwsh',
    title: `${PWSH_TEST_TAG} a PowerShell script tool (the pack's host)`,
    runs: hasPwsh,
    perCall: false,
    tools: {
      read: 'hostile_Read_SecretPs',
      write: 'hostile_Write_OutsidePs',
      connect: 'hostile_Connect_PortPs',
      env: 'hostile_Read_EnvPs',
      leave: 'hostile_Start_LeftoverPs',
    },
    argName: (name) => name.charAt(0).toUpperCase() + name.slice(1),
  },
];

let root: string;
let home: string;
let outside: string;
let project: string;
let keyPath: string;
let port: number;
let listener: net.Server;
let connections = 0;

/** The server's environment: a private HOME, the tracker's token and two of the server's own. */
function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return createBuiltMcpEnv({
    HOME: home,
    TOOLPACK_CACHE_DIR: path.join(root, 'cache'),
    TRACKER_API_TOKEN: TRACKER_TOKEN,
    TOOLPACK_TOKEN: SERVER_TOKEN,
    PROOF_SERVER_SECRET: SERVER_SECRET,
    ...extra,
  });
}

/** Nothing Toolpack does confines the tool: the reachability runs. */
const UNCONFINED = { TOOLPACK_SANDBOX: 'off', TOOLPACK_CONTAINMENT: 'off' };

function killLeftovers(marker: string): void {
  for (const pid of listProcessesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

async function attempt(
  serve: BuiltServe,
  kind: Kind,
  which: keyof Kind['tools'],
  args: Record<string, unknown>,
): Promise<Attempt> {
  const named = Object.fromEntries(
    Object.entries(args).map(([name, value]) => [kind.argName(name), value]),
  );
  const { text, isError } = await serve.callTool(kind.tools[which], named);
  expect(isError, `${kind.tools[which]} answered an error: ${text}\n${serve.stderr()}`).toBe(false);
  return JSON.parse(text) as Attempt;
}

/** Every attempt of one kind in one server; leftovers are looked for after the call or the server. */
async function attemptAll(kind: Kind, mode: 'confined' | 'unconfined') {
  const name = `${kind.label}-${mode}`;
  const target = path.join(outside, `written-${name}.txt`);
  const granted = path.join(project, 'out', `granted-${name}.txt`);
  const marker = `tpproof${unique}x${name}`;
  const before = connections;
  const serve = await startBuiltServe([], {
    cwd: project,
    env: serverEnv(mode === 'unconfined' ? UNCONFINED : {}),
  });
  try {
    const read = await attempt(serve, kind, 'read', { path: keyPath });
    const write = await attempt(serve, kind, 'write', { target, granted });
    const connect = await attempt(serve, kind, 'connect', { port });
    const env = await attempt(serve, kind, 'env', { names: ENV_NAMES });
    const leave = await attempt(serve, kind, 'leave', { marker });
    const tracker = JSON.parse((await serve.callTool('tracker_token', {})).text) as Attempt;
    // A process tool's call is over when it answers; a module's child or a PowerShell host
    // lives for the session, so what its tools start is looked for once the server has ended.
    const patience = mode === 'confined' ? 5_000 : 1_000;
    const goneAfterCall = kind.perCall
      ? await settle(() => listProcessesWith(marker).length === 0, patience)
      : undefined;
    await serve.close();
    const goneAfterServer = await settle(() => listProcessesWith(marker).length === 0, patience);
    return {
      read,
      write,
      connect,
      env,
      leave,
      tracker,
      target,
      granted,
      connected: connections - before,
      goneAfterCall,
      goneAfterServer,
      stderr: serve.stderr(),
    };
  } finally {
    await serve.close();
    killLeftovers(marker);
  }
}

beforeAll(async () => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-sandbox-proof-'));
  home = path.join(root, 'home');
  outside = path.join(root, 'outside');
  project = path.join(root, 'project');
  keyPath = path.join(home, '.ssh', 'id_ed25519');
  mkdirSync(path.dirname(keyPath), { recursive: true });
  mkdirSync(outside);
  mkdirSync(path.join(project, 'out'), { recursive: true });
  writeFileSync(keyPath, `${KEY}\n`, { mode: 0o600 });
  listener = net.createServer((socket) => {
    connections += 1;
    socket.end(`${GREETING}\n`);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
  for (const pack of ['hostile', 'tracker']) {
    const added = await runBuiltMcp(['pack', 'add', pack, '--yes', '--registry', registry], {
      cwd: project,
      env: serverEnv(),
    });
    if (added.code !== 0)
      throw new Error(`mcp pack add ${pack} --yes failed (${added.code}):\n${added.stderr}`);
  }
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => listener?.close(resolve));
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!linux)(
  'a hostile pack through the built mcp [needs Linux]',
  { timeout: 120_000 },
  () => {
    describe.each(KINDS)('$title', (kind) => {
      it.skipIf(!kind.runs || !sandbox.available)(
        'confined [needs bubblewrap]: every attempt is refused or contained',
        async () => {
          const seen = await attemptAll(kind, 'confined');
          expect(seen.read.done, seen.read.detail).toBe(false);
          expect(seen.read.detail).not.toContain(`sandboxproofkey${unique}`);

          expect(seen.write.done, seen.write.detail).toBe(false);
          expect(existsSync(seen.target)).toBe(false);
          // The refusal is the sandbox's, not a tool that cannot write at all: the folder the pack
          // declared writable took the same write.
          expect(seen.write.granted).toBe(true);
          expect(readFileSync(seen.granted, 'utf8')).toContain('written by hostile');

          expect(seen.connect.done, seen.connect.detail).toBe(false);
          expect(seen.connect.detail).not.toContain(GREETING);
          expect(seen.connected).toBe(0);

          // The tracker pack declared the token and got it, confined too; the hostile pack did not.
          expect(seen.tracker).toMatchObject({ done: true, detail: TRACKER_TOKEN });
          expect(seen.env, 'no undeclared variable reached the tool').toMatchObject({
            done: false,
            detail: '',
          });

          expect(seen.stderr).not.toContain('W_SANDBOX_UNAVAILABLE');

          // It did start the process; nothing of it outlived the call (a process tool) or the
          // session (a module's child, a PowerShell host).
          expect(seen.leave.done, seen.leave.detail).toBe(true);
          if (kind.perCall) expect(seen.goneAfterCall).toBe(true);
          expect(seen.goneAfterServer).toBe(true);
        },
      );

      it.skipIf(!kind.runs)(
        'unconfined (TOOLPACK_SANDBOX=off, TOOLPACK_CONTAINMENT=off): the key, the folder, the port and the leftover are reached; the token by its own pack only',
        async () => {
          const seen = await attemptAll(kind, 'unconfined');
          // The server said plainly that the pack's tools run with the user's full rights.
          expect(seen.stderr).toContain('W_SANDBOX_UNAVAILABLE');
          expect(seen.read).toMatchObject({ done: true });
          expect(seen.read.detail.trim()).toBe(KEY);

          expect(seen.write).toMatchObject({ done: true, granted: true });
          expect(readFileSync(seen.target, 'utf8')).toContain('written by hostile');

          expect(seen.connect).toMatchObject({ done: true, detail: GREETING });
          expect(seen.connected).toBeGreaterThan(0);

          // The token was there to take: the pack that declared it read it in the same session.
          // A pack tool's environment holds only its own pack's names with the OS sandbox off
          // too (the runners build it, not bubblewrap), and never the server's own token or a
          // variable nobody declared.
          expect(seen.tracker).toMatchObject({ done: true, detail: TRACKER_TOKEN });
          expect(seen.env).toMatchObject({ done: false, detail: '' });

          expect(seen.leave.done, seen.leave.detail).toBe(true);
          if (kind.perCall)
            expect(seen.goneAfterCall, 'the leftover outlived the call').toBe(false);
          expect(seen.goneAfterServer, 'the leftover outlived the server').toBe(false);
        },
      );
    });

    it.skipIf(!sandbox.available)(
      'mcp call [needs bubblewrap]: the tool cannot read the key confined, and reads it with the sandbox off',
      async () => {
        const args = ['call', 'hostile_read_secret_sh', '--arg', `path=${keyPath}`];
        const confined = await runBuiltMcp(args, { cwd: project, env: serverEnv() });
        expect(confined.code, confined.stderr).toBe(0);
        expect(JSON.parse(confined.stdout)).toMatchObject({ attempt: 'read', done: false });
        expect(confined.stdout + confined.stderr).not.toContain(`sandboxproofkey${unique}`);

        const off = await runBuiltMcp(args, {
          cwd: project,
          env: serverEnv({ TOOLPACK_SANDBOX: 'off' }),
        });
        expect(off.code, off.stderr).toBe(0);
        expect(JSON.parse(off.stdout)).toMatchObject({ attempt: 'read', done: true });
        expect(off.stdout).toContain(`sandboxproofkey${unique}`);
      },
    );

    it.skipIf(!sandbox.available)(
      "mcp list [needs bubblewrap]: a JS module's top-level code cannot read the key confined, and reads it with the sandbox off",
      async () => {
        const out = path.join(project, 'out');
        const reports = () =>
          readdirSync(out)
            .filter((name) => name.startsWith('import-'))
            .map((name) => path.join(out, name));
        const readReports = () =>
          reports().map(
            (file) => JSON.parse(readFileSync(file, 'utf8')) as Attempt & { token: boolean },
          );
        const clear = () => {
          for (const file of reports()) rmSync(file);
        };
        writeFileSync(path.join(out, 'aim.json'), JSON.stringify({ path: keyPath }));
        try {
          clear();
          const confined = await runBuiltMcp(['list', '--no-cache'], {
            cwd: project,
            env: serverEnv(),
          });
          expect(confined.stdout, confined.stderr).toContain('hostile_read_secret_js');
          // Its top level ran (it left a report in the folder its pack may write) and got nothing.
          const seen = readReports();
          expect(seen.length).toBeGreaterThan(0);
          for (const report of seen) {
            expect(report).toMatchObject({ read: false, token: false });
            expect(report.detail).not.toContain(`sandboxproofkey${unique}`);
          }

          clear();
          const off = await runBuiltMcp(['list', '--no-cache'], {
            cwd: project,
            env: serverEnv({ TOOLPACK_SANDBOX: 'off' }),
          });
          expect(off.stdout, off.stderr).toContain('hostile_read_secret_js');
          const unconfined = readReports();
          expect(unconfined.length).toBeGreaterThan(0);
          for (const report of unconfined) {
            expect(report).toMatchObject({ read: true, token: false });
            expect(report.detail).toContain(`sandboxproofkey${unique}`);
          }
        } finally {
          rmSync(path.join(out, 'aim.json'), { force: true });
          clear();
        }
      },
    );

    it('--require-sandbox with TOOLPACK_SANDBOX=off: mcp call and mcp serve refuse to run the pack tool', async () => {
      const env = serverEnv({ TOOLPACK_SANDBOX: 'off' });
      const refused = await runBuiltMcp(
        ['call', 'hostile_read_secret_sh', '--arg', `path=${keyPath}`, '--require-sandbox'],
        { cwd: project, env },
      );
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stderr).toContain('E_SANDBOX_REQUIRED');
      expect(refused.stdout + refused.stderr).not.toContain(`sandboxproofkey${unique}`);

      const serve = await startBuiltServe(['--require-sandbox'], { cwd: project, env });
      try {
        const answer = await serve.callTool('hostile_read_secret_sh', { path: keyPath });
        expect(answer.isError).toBe(true);
        expect(answer.text).toContain('E_SANDBOX_REQUIRED');
        expect(answer.text).not.toContain(`sandboxproofkey${unique}`);
        // A JS module is code that runs as it is imported: unconfined, it is not even listed.
        const listed = await serve.listTools();
        expect(listed).toContain('hostile_read_secret_sh');
        expect(listed.filter((name) => name.endsWith('_js'))).toEqual([]);
        // Only what would run unconfined is refused: the server's built-in tools still answer.
        expect((await serve.callTool('find_tools', { query: 'secret' })).isError).toBe(false);
      } finally {
        await serve.close();
      }
    });
  },
);
