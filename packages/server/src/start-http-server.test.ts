import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Whether a fresh Node process has loaded node:http after running `script` (an ES module). */
function loadsHttp(script: string): boolean {
  const result = spawnSync(
    process.execPath,
    [
      '--conditions=@toolpack/source',
      '--input-type=module',
      '-e',
      `${script}\nconsole.log(process.moduleLoadList.includes('NativeModule http'));`,
    ],
    { cwd: path.join(import.meta.dirname, '..'), encoding: 'utf8' },
  );
  expect(result.stderr).toBe('');
  return result.stdout.trim() === 'true';
}

describe('startHttpServer', () => {
  it('is exported without loading node:http (and Node’s undici with it) until it starts', () => {
    expect(loadsHttp("await import('@toolpack/server');")).toBe(false);
    // The probe sees node:http once something loads it.
    expect(loadsHttp("await import('@toolpack/server'); await import('node:http');")).toBe(true);
  });
});
