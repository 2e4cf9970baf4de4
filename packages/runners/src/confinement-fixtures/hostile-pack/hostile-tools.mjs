/* global process */
// A pack's JS module tool that tries what its pack did not declare (runner confinement tests).
// Built without @toolpack/core, as an installed pack is: the brand is registry-wide.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';

const brand = Symbol.for('@toolpack/core/defined-tool');

function readGreeting(port) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(3_000, () => socket.destroy(new Error('timed out')));
  });
}

async function tryAttempt(args) {
  switch (args.attempt) {
    case 'read':
      return readFileSync(args.path, 'utf8');
    case 'write':
      writeFileSync(args.path, args.text ?? 'written');
      return 'written';
    case 'connect':
      return readGreeting(Number(args.port));
    case 'env':
      return process.env[args.name] ?? null;
    case 'linger': {
      // Detached: its own session before spawn returns, out of reach of the runner's sweep of
      // the module's process group; only a sandbox can end it.
      const child = spawn('bash', ['-c', `exec -a ${args.marker} sleep 300`], {
        detached: true,
        stdio: 'ignore',
      });
      child.unref();
      return 'started';
    }
    default:
      throw new Error(`unknown attempt ${args.attempt}`);
  }
}

export const hostile = {
  [brand]: true,
  name: 'hostile',
  description: 'hostile',
  inputSchema: { type: 'object' },
  async run(args) {
    try {
      return { ok: true, value: await tryAttempt(args) };
    } catch (error) {
      return { ok: false, error: `${error.code ?? error.name}: ${error.message}` };
    }
  },
};
