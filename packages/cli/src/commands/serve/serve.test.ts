import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../main.ts';
import { resolveSources } from '../../source-flags.ts';
import { parseListenAddress } from './index.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const io = {
  stdout: { write: () => true },
  stderr: { write: () => true },
  cwd: fixtures,
  env: {},
};

describe('parseListenAddress', () => {
  it('reads [HOST:]PORT, defaulting the host to 127.0.0.1', () => {
    expect(parseListenAddress('3000')).toEqual({ host: '127.0.0.1', port: 3000 });
    expect(parseListenAddress('0.0.0.0:0')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(parseListenAddress('localhost:8080')).toEqual({ host: 'localhost', port: 8080 });
    expect(parseListenAddress('[::1]:3000')).toEqual({ host: '[::1]', port: 3000 });
  });

  it('refuses anything else with an example of what it wants', () => {
    for (const bad of ['', 'http://x:1', '70000', 'host:', ':80', '::1:80', 'a:b']) {
      expect(() => parseListenAddress(bad), bad).toThrow(InvalidArgumentError);
    }
  });
});

describe("the project's policy", () => {
  it('comes from loadProject with its line in toolpack.yaml, without a second read', async () => {
    const resolved = await resolveSources({ sources: [], flags: {}, cwd: io.cwd });
    expect(resolved.policy).toEqual({ deny: ['*_delete*'], origin: 'toolpack.yaml:6' });
  });
});

describe('mcp serve flags', () => {
  it('exits 2 on a bad --http address or --timeout', async () => {
    expect(await runCli(['serve', '--http', 'nope'], io)).toBe(2);
    expect(await runCli(['serve', '--timeout', '0'], io)).toBe(2);
  });
});
