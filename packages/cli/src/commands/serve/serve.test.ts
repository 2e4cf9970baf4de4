import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../main.ts';
import { parseListenAddress, readPolicyFile } from './index.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');

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

describe('readPolicyFile', () => {
  it('reads a JSON policy file and names it as the origin', async () => {
    const { policy, diagnostics } = await readPolicyFile(
      path.join(fixtures, 'policy.json'),
      fixtures,
    );
    expect(diagnostics).toEqual([]);
    expect(policy).toEqual({
      allow: ['note_*'],
      deny: ['*_delete'],
      readOnly: false,
      origin: 'policy.json',
    });
  });

  it('reads policy: from toolpack.yaml with its line', async () => {
    const { policy } = await readPolicyFile(
      path.join(fixtures, 'toolpack.yaml'),
      fixtures,
      'policy',
    );
    expect(policy).toEqual({ deny: ['*_delete*'], origin: 'toolpack.yaml:6' });
  });

  it('is no policy when toolpack.yaml has no policy: key', async () => {
    expect(await readPolicyFile(path.join(fixtures, 'toolpack.yaml'), fixtures, 'nothing')).toEqual(
      { diagnostics: [] },
    );
  });

  it('explains a YAML error and a missing file, with where', async () => {
    const bad = await readPolicyFile(path.join(fixtures, 'bad-policy.yaml'), fixtures);
    expect(bad.policy).toBeUndefined();
    expect(bad.diagnostics[0]).toMatchObject({
      code: 'E_POLICY',
      path: 'bad-policy.yaml',
      message: expect.stringMatching(/not valid YAML/),
    });
    const missing = await readPolicyFile(path.join(fixtures, 'nope.yaml'), fixtures);
    expect(missing.diagnostics[0]).toMatchObject({
      code: 'E_POLICY',
      path: 'nope.yaml',
      hint: 'Check the path given to --policy.',
    });
  });
});

describe('mcp serve flags', () => {
  it('exits 2 on a bad --http address or --timeout', async () => {
    const io = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      cwd: fixtures,
      env: {},
    };
    expect(await runCli(['serve', '--http', 'nope'], io)).toBe(2);
    expect(await runCli(['serve', '--timeout', '0'], io)).toBe(2);
  });
});
