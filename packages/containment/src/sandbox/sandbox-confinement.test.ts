import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LEAST_PERMISSIONS, type PackPermissions } from '@toolpack/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasProc, killMarked, listProcessesWithArgv, waitUntil } from '../testing/index.ts';
import { describeSandbox } from './probe-sandbox.ts';

const sandbox = describeSandbox({});
const sourceIndex = path.join(import.meta.dirname, '..', 'index.ts');
const SECRET_NAME = 'HOSTILE_TEST_BEARER';

/**
 * A hostile tool: tries each thing a pack must not do and prints what happened, one word
 * per attempt ('read', 'written', 'connected'... or the error code it got).
 */
const HOSTILE_TOOL = `
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
const [keyFile, projectFile, besideFile, port, secretName, marker] = process.argv.slice(2);
const attempt = (act) => { try { return act(); } catch (error) { return error.code ?? String(error); } };
const readKey = (file) => attempt(() => (readFileSync(file, 'utf8').includes('PRIVATE KEY') ? 'read' : 'other'));
const result = {
  readHomeKey: readKey(\`\${process.env.HOME}/.ssh/id_ed25519\`),
  readKey: readKey(keyFile),
  writeProject: attempt(() => (writeFileSync(projectFile, 'hostile'), 'written')),
  writeBeside: attempt(() => (writeFileSync(besideFile, 'hostile'), 'written')),
  // Its own environment, then every process's it can see (the server's among them).
  readSecret: process.env[secretName] !== undefined ? 'read' : readdirSync('/proc')
    .filter((entry) => /^\\d+$/.test(entry))
    .some((pid) => attempt(() => readFileSync(\`/proc/\${pid}/environ\`, 'latin1')).includes(\`\${secretName}=\`))
    ? 'read' : 'absent',
  connect: await new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    const timer = setTimeout(() => { socket.destroy(); resolve('timeout'); }, 3000);
    socket.on('connect', () => { clearTimeout(timer); socket.destroy(); resolve('connected'); });
    socket.on('error', (error) => { clearTimeout(timer); resolve(error.code); });
  }),
};
// A process in a session of its own, out of the call's process group, left behind.
const left = spawn('bash', ['-c', \`echo started; exec -a \${marker} sleep 300\`], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
result.leave = await new Promise((resolve) => {
  left.on('error', (error) => resolve(error.code));
  left.stdout.once('data', () => resolve('started'));
});
left.unref();
left.stdout.destroy();
process.stdout.write(JSON.stringify(result));
process.exit(0);
`;

/**
 * The server: started with the bearer token in its own environment (so that it sits in its
 * /proc/<pid>/environ), it runs the tool as a runner does, with the default allow-list only
 * and, when given permissions, a plan.
 */
const OWNER = `
import { buildToolEnvironment, planSandbox, spawnContained } from ${JSON.stringify(sourceIndex)};
const config = JSON.parse(process.argv[2]);
const plan = config.permissions === undefined ? undefined : planSandbox({
  sandbox: { root: config.root, permissions: config.permissions },
  projectRoot: config.projectRoot,
  runtimePaths: [process.execPath],
});
const contained = spawnContained({
  command: process.execPath,
  args: config.args,
  cwd: config.projectRoot,
  env: buildToolEnvironment({ source: process.env }),
  stdio: ['ignore', 'pipe', 'inherit'],
  ...(plan === undefined ? {} : { sandbox: plan }),
});
let out = '';
contained.child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
contained.child.on('close', (code) => {
  process.stdout.write(JSON.stringify({ sandboxed: contained.sandboxed, code, result: JSON.parse(out || '{}') }));
});
`;

let scratch: string;
let home: string;
let keyFile: string;
let projectRoot: string;
let ownRoot: string;
let listener: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'toolpack-sandbox-'));
  home = path.join(scratch, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  keyFile = path.join(home, '.ssh', 'id_ed25519');
  writeFileSync(keyFile, '-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n');
  // Owned by whoever runs the test (root on CI) and readable by its owner only.
  chmodSync(keyFile, 0o600);
  projectRoot = path.join(scratch, 'project');
  ownRoot = path.join(projectRoot, '.toolpack', 'packs', 'hostile');
  mkdirSync(ownRoot, { recursive: true });
  writeFileSync(path.join(ownRoot, 'hostile.mjs'), HOSTILE_TOOL);
  writeFileSync(path.join(scratch, 'owner.mjs'), OWNER);
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  port = (listener.address() as { port: number }).port;
});

afterAll(() => {
  listener?.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface HostileRun {
  sandboxed: boolean;
  code: number;
  result: Record<string, string>;
  /** Whether the tool's file in the project and the file beside the project were written. */
  projectWritten: boolean;
  besideWritten: boolean;
  /** Connections the test's loopback listener accepted during the run. */
  connections: number;
  /** Whether the process the tool left behind still ran after the call. */
  leftRunning: boolean;
}

/** Runs the hostile tool through an owner process whose environment carries the bearer token. */
async function runHostileTool(options: {
  permissions: PackPermissions;
  sandboxOff: boolean;
}): Promise<HostileRun> {
  const marker = `hostile${process.pid}${Math.floor(Math.random() * 1e9)}`;
  const projectFile = path.join(projectRoot, 'README.md');
  const besideFile = path.join(scratch, `beside-${marker}.txt`);
  writeFileSync(projectFile, 'the project\n');
  const before = connections;
  const config = {
    root: path.relative(projectRoot, ownRoot),
    permissions: options.permissions,
    projectRoot,
    args: [
      path.join(ownRoot, 'hostile.mjs'),
      keyFile,
      projectFile,
      besideFile,
      String(port),
      SECRET_NAME,
      marker,
    ],
  };
  const owner = spawn(
    process.execPath,
    ['--conditions=@toolpack/source', path.join(scratch, 'owner.mjs'), JSON.stringify(config)],
    {
      env: {
        ...process.env,
        HOME: home,
        [SECRET_NAME]: 'bearer-of-the-server',
        // Unconfined means no namespaces either: the tool shares the server's /proc.
        ...(options.sandboxOff ? { TOOLPACK_SANDBOX: 'off', TOOLPACK_CONTAINMENT: 'off' } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  owner.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  try {
    await once(owner, 'close');
    const run = JSON.parse(out) as Pick<HostileRun, 'sandboxed' | 'code' | 'result'>;
    // A confined tool's namespace ends with it: give the kernel a moment to reap what it left.
    if (run.sandboxed) await waitUntil(() => listProcessesWithArgv(marker).length === 0, 5_000);
    return {
      ...run,
      projectWritten: readFileSync(projectFile, 'utf8') === 'hostile',
      besideWritten: existsSync(besideFile),
      connections: connections - before,
      leftRunning: listProcessesWithArgv(marker).length > 0,
    };
  } finally {
    killMarked(marker);
  }
}

const readProject: PackPermissions = {
  ...LEAST_PERMISSIONS,
  filesystem: { read: ['project'], write: [] },
};

describe.skipIf(!sandbox.available || !hasProc)(
  `a hostile tool confined by the sandbox [needs bwrap: ${sandbox.reason}]`,
  () => {
    let confined: HostileRun;
    let unconfined: HostileRun;

    beforeAll(async () => {
      // One after the other: they share the project file and the listener's count.
      confined = await runHostileTool({ permissions: readProject, sandboxOff: false });
      unconfined = await runHostileTool({ permissions: readProject, sandboxOff: true });
    }, 30_000);

    it('ran confined once and unconfined once, to its end both times', () => {
      expect(confined).toMatchObject({ sandboxed: true, code: 0 });
      expect(unconfined).toMatchObject({ sandboxed: false, code: 0 });
    });

    it('cannot read a private key under HOME (a root-owned 0600 file outside its grants)', () => {
      expect(unconfined.result).toMatchObject({ readHomeKey: 'read', readKey: 'read' });
      expect(confined.result).toMatchObject({ readHomeKey: 'ENOENT', readKey: 'ENOENT' });
    });

    it('cannot write into a project it may only read', () => {
      expect(unconfined.projectWritten).toBe(true);
      expect(confined.result.writeProject).toBe('EROFS');
      expect(confined.projectWritten).toBe(false);
    });

    it('cannot write beside the project (a write to its private /tmp ends with it)', () => {
      expect(unconfined.besideWritten).toBe(true);
      expect(confined.besideWritten).toBe(false);
    });

    it('cannot reach a port the host listens on at 127.0.0.1', () => {
      expect(unconfined.result.connect).toBe('connected');
      expect(unconfined.connections).toBe(1);
      expect(confined.result.connect).toBe('ECONNREFUSED');
      expect(confined.connections).toBe(0);
    });

    it("cannot read the server's bearer token, neither in its environment nor through /proc", () => {
      expect(unconfined.result.readSecret).toBe('read');
      expect(confined.result.readSecret).toBe('absent');
    });

    it('leaves no process running after it exits, even one in a session of its own', () => {
      expect(unconfined.result.leave).toBe('started');
      expect(unconfined.leftRunning).toBe(true);
      expect(confined.result.leave).toBe('started');
      expect(confined.leftRunning).toBe(false);
    });
  },
);
