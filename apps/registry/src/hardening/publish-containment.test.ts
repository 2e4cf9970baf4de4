// Issue 14, findings 2 and 9, at publish time: the registry imports a JS module pack to list
// its tools. That import must get the allow-listed environment (not the registry's secrets),
// and when the registry is killed with SIGKILL mid-import, the importing child and whatever
// the module started must not keep running. This is the containment under the sandbox, as a
// registry without bubblewrap has it (TOOLPACK_SANDBOX=off): the sandbox itself would keep the
// module from writing its report outside its folder (publish-sandbox.test.ts).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeContainment } from '@toolpack/containment';
import { generateToken } from '../auth/tokens.ts';
import { makeTempDir, packFolder, removeTempDirs } from '../testing/registry-fixtures.ts';
import { publish } from './hardening-kit.ts';

const START_REGISTRY = path.join(import.meta.dirname, '..', 'start-registry.ts');
const linux = process.platform === 'linux';
const namespaces = linux && describeContainment().mode === 'namespace';

afterAll(() => removeTempDirs());

/** Pids whose argv[0] is `marker`, or whose command line contains `needle`. */
function findProcesses(test: (argv: string[]) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry) || Number(entry) === process.pid) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (/^State:\s+Z/mu.test(status)) continue;
      if (test(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')))
        found.push(Number(entry));
    } catch {
      // Ended meanwhile.
    }
  }
  return found;
}

async function settle(check: () => boolean, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** A pack whose module records its environment and argv, starts a setsid grandchild, and hangs. */
async function makeHostilePack(scratch: string, marker: string): Promise<Buffer> {
  const dir = path.join(await makeTempDir('toolpack-hostile-pack-'), 'hostilepack');
  await mkdir(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'toolpack.yaml'),
    'name: hostilepack\nversion: 1.0.0\ndescription: Imports badly.\ntags: [MCPTools]\nsources:\n  - module: tools.mjs\n',
  );
  writeFileSync(
    path.join(dir, 'tools.mjs'),
    `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const scratch = ${JSON.stringify(scratch)};
writeFileSync(scratch + '/env.json', JSON.stringify(process.env));
writeFileSync(scratch + '/argv.json', JSON.stringify(process.argv));
spawn('setsid', ['bash', '-c', 'exec -a "$M" sleep 300'], {
  detached: true,
  stdio: 'ignore',
  env: { ...process.env, M: ${JSON.stringify(marker)} },
}).unref();
// Keeps the import (and so the publish) busy until someone gives up on it.
await new Promise((resolve) => setTimeout(resolve, 60_000));
export const never = 1;
`,
  );
  return packFolder(dir);
}

describe.skipIf(!linux)('publish-time import of a JS module pack [needs Linux]', () => {
  it('gets the allow-listed environment, and nothing it started survives kill -9 of the registry', async () => {
    const scratch = await makeTempDir('toolpack-publish-contain-');
    const marker = `tppublish${process.pid}x${Math.floor(Math.random() * 1e9)}`;
    const secret = `registry-secret-${marker}`;
    const token = generateToken();
    const main = path.join(scratch, 'registry.mjs');
    writeFileSync(
      main,
      `import { startRegistry } from ${JSON.stringify(START_REGISTRY)};
const registry = await startRegistry({ port: 0, seedDir: false, rateLimits: false, dataDir: ${JSON.stringify(path.join(scratch, 'data'))}, tokens: [{ owner: 'acme', token: ${JSON.stringify(token)} }] });
process.stdout.write(registry.url + '\\n');
`,
    );
    const registry = spawn(process.execPath, ['--conditions=@toolpack/source', main], {
      env: {
        ...process.env,
        TOOLPACK_TOKEN: secret,
        REGISTRY_DATABASE_PASSWORD: secret,
        TOOLPACK_SANDBOX: 'off',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let url = '';
    registry.stdout.setEncoding('utf8').on('data', (chunk: string) => (url += chunk));
    const leftovers = () => {
      const argvFile = path.join(scratch, 'argv.json');
      const modulePath = existsSync(argvFile)
        ? ((JSON.parse(readFileSync(argvFile, 'utf8')) as string[])[2] ?? marker)
        : marker;
      return findProcesses((argv) => argv[0] === marker || argv.includes(modulePath));
    };
    try {
      expect(await settle(() => url.includes('\n'), 20_000)).toBe(true);
      const publishing = publish(url.trim(), token, await makeHostilePack(scratch, marker));
      publishing.catch(() => undefined);
      // The import ran: it wrote what it was given and started its grandchild.
      expect(await settle(() => existsSync(path.join(scratch, 'argv.json')), 20_000)).toBe(true);
      const environment = JSON.parse(
        readFileSync(path.join(scratch, 'env.json'), 'utf8'),
      ) as Record<string, string>;
      expect(environment.PATH).toBeTypeOf('string');
      expect(JSON.stringify(environment)).not.toContain(secret);
      expect(await settle(() => leftovers().length >= 2, 10_000)).toBe(true);

      registry.kill('SIGKILL');
      // The listing child exits with its parent; the setsid grandchild goes with the namespace.
      const expected = namespaces ? 0 : 1;
      expect(await settle(() => leftovers().length <= expected, 5_000)).toBe(true);
    } finally {
      registry.kill('SIGKILL');
      for (const pid of leftovers()) process.kill(pid, 'SIGKILL');
    }
  });
});
