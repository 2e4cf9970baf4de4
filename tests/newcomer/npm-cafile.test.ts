// Issue 33 item 1: behind a proxy that re-signs TLS, the proxy's CA is usually named in the
// user's global npmrc (`cafile=`). `npm install --prefix DIR`, which scripts/toolchain.sh uses
// to put Node and pnpm into .tools/, reads DIR/etc/npmrc as its global config instead, lost the
// CA and failed with SELF_SIGNED_CERT_IN_CHAIN after minutes of silence, while plain npm worked.
//
// Here the "proxy" is a loopback HTTPS registry whose certificate only a CA file named in the
// global npmrc of a system npm (a Node and npm of their own prefix, so that npmrc is theirs)
// can verify. A fresh copy of the toolchain, sourced in a bare bash and zsh with that npm on
// PATH, must reach it over TLS: the registry answers 404 (it has no packages), so what is
// proven is that npm trusted the CA and asked there, which it does only when it read the
// user's global npmrc.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
const which = (name: string) =>
  spawnSync('sh', ['-c', `command -v ${name}`], {
    encoding: 'utf8',
    env: { PATH: SYSTEM_PATH },
  }).stdout.trim();
const systemNode = which('node');
const systemNpm = which('npm');
const hasOpenssl = which('openssl') !== '';
const hasZsh = which('zsh') !== '';
const runnable = systemNode !== '' && systemNpm !== '' && hasOpenssl;

let work: string;
let server: Server;
let registry: string;
const requests: string[] = [];

/** A CA, and a certificate for 127.0.0.1 it signed. */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  const run = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]}: ${result.stderr}`);
  };
  const subject = (name: string) => ['-subj', `/CN=${name}`];
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    ...subject('Toolpack test proxy CA'),
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    ...subject('127.0.0.1'),
  ]);
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  ]);
  return {
    ca: path.join(dir, 'ca.pem'),
    key: readFileSync(path.join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(path.join(dir, 'server.pem'), 'utf8'),
  };
}

/**
 * A system Node and npm under a prefix of their own (npm derives its global config, the user's
 * global npmrc, from its Node's folder: `<prefix>/etc/npmrc`).
 */
function makeSystemNpm(prefix: string, npmrc: string): string {
  const bin = path.join(prefix, 'bin');
  mkdirSync(bin, { recursive: true });
  mkdirSync(path.join(prefix, 'etc'), { recursive: true });
  copyFileSync(realpathSync(systemNode), path.join(bin, 'node'));
  spawnSync('chmod', ['755', path.join(bin, 'node')]);
  writeFileSync(
    path.join(bin, 'npm'),
    `#!/bin/sh\nexec "${path.join(bin, 'node')}" "${realpathSync(systemNpm)}" "$@"\n`,
    { mode: 0o755 },
  );
  writeFileSync(path.join(prefix, 'etc', 'npmrc'), npmrc);
  return bin;
}

/** A fresh clone's toolchain files (no .tools/): sourcing it must install Node and pnpm. */
function makeClone(dir: string): string {
  mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  for (const file of ['package.json', 'scripts/toolchain.sh', 'scripts/check-node.mjs'])
    copyFileSync(path.join(root, file), path.join(dir, file));
  return dir;
}

function runShell(
  shell: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

describe.skipIf(!runnable)(
  'toolchain.sh behind a TLS-intercepting proxy [needs a system node and npm, and openssl]',
  () => {
    let systemBin: string;
    let home: string;

    beforeAll(async () => {
      work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-npm-cafile-'));
      const certs = makeCertificates(work);
      server = createServer({ key: certs.key, cert: certs.cert }, (request, response) => {
        requests.push(decodeURIComponent(request.url ?? ''));
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"error":"Not found"}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      registry = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      systemBin = makeSystemNpm(
        path.join(work, 'system'),
        `registry=${registry}\ncafile=${certs.ca}\n`,
      );
      home = path.join(work, 'home');
      mkdirSync(home);
    }, 60_000);

    afterAll(async () => {
      await new Promise<void>((resolve) => server?.close(() => resolve()));
      if (work !== undefined) rmSync(work, { recursive: true, force: true });
    });

    const env = () => ({
      HOME: home,
      PATH: `${systemBin}:${SYSTEM_PATH}`,
      npm_config_cache: path.join(home, 'npm-cache'),
      // One attempt: a refused package is not retried for minutes.
      npm_config_fetch_retries: '0',
    });

    it('is why: npm install --prefix reads another global npmrc than plain npm', () => {
      const prefix = path.join(work, 'prefix-probe');
      const registryOf = (args: string[], extra: Record<string, string> = {}) =>
        spawnSync(path.join(systemBin, 'npm'), ['config', 'get', 'registry', ...args], {
          encoding: 'utf8',
          env: { ...env(), ...extra },
        }).stdout.trim();
      expect(registryOf([])).toBe(registry);
      // What the toolchain did before: the proxy's registry and CA are gone.
      expect(registryOf(['--prefix', prefix])).toBe('https://registry.npmjs.org/');
      // What it does now.
      const globalconfig = path.join(work, 'system', 'etc', 'npmrc');
      expect(registryOf(['--prefix', prefix], { npm_config_globalconfig: globalconfig })).toBe(
        registry,
      );
    });

    for (const shell of ['bash', 'zsh'] as const) {
      it.skipIf(shell === 'zsh' && !hasZsh)(
        `${shell}: a fresh clone's toolchain asks the proxy's registry over TLS it trusts${shell === 'zsh' ? ' [needs zsh]' : ''}`,
        async () => {
          requests.length = 0;
          const clone = makeClone(path.join(work, `clone-${shell}`));
          const args = shell === 'zsh' ? ['-f', '-c'] : ['--norc', '--noprofile', '-c'];
          // Not spawnSync: the registry answering it runs in this process.
          const result = await runShell(
            shell,
            [...args, 'source scripts/toolchain.sh'],
            clone,
            env(),
          );
          // Node (the machine's 20 is too old) and pnpm were both asked for at the registry the
          // user's global npmrc names, over TLS verified with its CA file.
          expect(requests).toEqual(
            expect.arrayContaining([
              expect.stringMatching(/^\/node-linux-/),
              expect.stringMatching(/^\/@pnpm\/exe\.linux-/),
            ]),
          );
          expect(result.stderr).not.toMatch(/SELF_SIGNED_CERT|UNABLE_TO_VERIFY|CERT_/);
          // The registry has no packages: npm says so (a 404), not a certificate error.
          expect(result.stderr).toMatch(/404|E404|Not found/i);
        },
        150_000,
      );
    }
  },
);
