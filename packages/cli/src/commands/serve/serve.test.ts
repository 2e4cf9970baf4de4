import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
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

describe("the project's schema dialect", () => {
  it('comes from schemaDialect: in toolpack.yaml, and is absent when not set', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-serve-dialect-'));
    try {
      writeFileSync(path.join(project, 'toolpack.yaml'), 'schemaDialect: openai-strict\n');
      const resolved = await resolveSources({ sources: [], flags: {}, cwd: project });
      expect(resolved.schemaDialect).toBe('openai-strict');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
    const plain = await resolveSources({ sources: [], flags: {}, cwd: io.cwd });
    expect(plain.schemaDialect).toBeUndefined();
  });
});

describe('mcp serve flags', () => {
  it('exits 2 on a bad --http address, --timeout, --question-timeout or --schema-dialect', async () => {
    expect(await runCli(['serve', '--http', 'nope'], io)).toBe(2);
    expect(await runCli(['serve', '--timeout', '0'], io)).toBe(2);
    // Refused for its value, not as an unknown option.
    let said = '';
    const seen = { ...io, stderr: { write: (text: string) => Boolean((said += text)) } };
    expect(await runCli(['serve', '--question-timeout', '1.5'], seen)).toBe(2);
    expect(said).toContain("option '--question-timeout <ms>' argument '1.5' is invalid");
    expect(await runCli(['serve', '--schema-dialect', 'strict'], io)).toBe(2);
  });
});

describe('mcp serve --pack', () => {
  const officialPacks = path.join(
    import.meta.dirname,
    '..',
    '..',
    '..',
    '..',
    '..',
    'registry',
    'packs',
  );
  const run = async (args: string[], cwd: string) => {
    const cache = mkdtempSync(path.join(os.tmpdir(), 'toolpack-serve-pack-cache-'));
    let stderr = '';
    try {
      const code = await runCli(['serve', ...args], {
        ...io,
        cwd,
        env: { TOOLPACK_CACHE_DIR: cache, NO_COLOR: '1' },
        stderr: { write: (text: string) => (stderr += text) },
      });
      return { code, stderr };
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  };

  it('is not mixed with source flags, and --registry is only for it', async () => {
    const mixed = await run(['--pack', 'json', '--script-root', '.'], fixtures);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--pack serves only the named packs: it cannot be mixed');
    const alone = await run(['--registry', officialPacks], fixtures);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--registry is for --pack');
  });

  it('refuses a pack granted the project when the working directory is the filesystem root', async () => {
    const root = await run(
      ['--pack', 'files', '--registry', officialPacks],
      path.parse(fixtures).root,
    );
    expect(root.code).toBe(2);
    expect(root.stderr).toMatch(
      /files may use the project, which is the working directory, and that is the filesystem root/,
    );
    expect(root.stderr).toContain(
      'hint: Start it in the folder it should work on: mcp -C <folder>',
    );
  });

  it('refuses one short name twice, and a pack the registry does not have', async () => {
    const twice = await run(
      ['--pack', 'json', '--pack', 'json@1.1.1', '--registry', officialPacks],
      fixtures,
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('would both serve their tools as json_*');
    const missing = await run(['--pack', 'no-such-pack', '--registry', officialPacks], fixtures);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no-such-pack');
  });
});
