import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkPackFolder,
  describeSandbox,
  openPackSession,
  readStructured,
} from '../../../../apps/registry/src/testing/pack-test-kit.ts';

const packDir = path.resolve(import.meta.dirname, '..');
const scripts = path.join(packDir, 'scripts');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-json-pack-'));
const sandbox = describeSandbox();
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Runs a script as the process runner does: the arguments as one JSON object on stdin. */
function run(tool: string, args: Record<string, unknown>) {
  const result = spawnSync(process.execPath, [path.join(scripts, `${tool}.mjs`)], {
    input: JSON.stringify(args),
    encoding: 'utf8',
  });
  return {
    code: result.status,
    output: result.stdout === '' ? undefined : JSON.parse(result.stdout),
    error: result.stderr.trim(),
  };
}

describe('the json pack tools', () => {
  it('format pretty-prints, minifies and sorts keys', () => {
    expect(run('format', { json: '{"b":1,"a":[1,2]}' }).output).toEqual({
      json: '{\n  "b": 1,\n  "a": [\n    1,\n    2\n  ]\n}',
    });
    expect(
      run('format', { json: '{"b":{"d":1,"c":2},"a":0}', indent: 0, sort_keys: true }).output,
    ).toEqual({ json: '{"a":0,"b":{"c":2,"d":1}}' });
  });

  it('query picks values by path, with * for every item or key', () => {
    const json = JSON.stringify({ items: [{ id: 1 }, { id: 2 }], 'odd key': { x: true } });
    expect(run('query', { json, path: 'items[*].id' }).output).toEqual({
      count: 2,
      matches: [
        { path: 'items[0].id', value: 1 },
        { path: 'items[1].id', value: 2 },
      ],
    });
    expect(run('query', { json, path: '["odd key"].x' }).output).toEqual({
      count: 1,
      matches: [{ path: '["odd key"].x', value: true }],
    });
    expect(run('query', { json, path: 'missing.deep' }).output).toEqual({ count: 0, matches: [] });
  });

  it('diff lists what was added, removed and changed', () => {
    expect(
      run('diff', { before: '{"a":1,"c":[1],"gone":0}', after: '{"a":2,"b":true,"c":[1,2]}' })
        .output,
    ).toEqual({
      equal: false,
      changes: [
        { op: 'changed', path: 'a', before: 1, after: 2 },
        { op: 'added', path: 'b', after: true },
        { op: 'added', path: 'c[1]', after: 2 },
        { op: 'removed', path: 'gone', before: 0 },
      ],
    });
    expect(run('diff', { before: '[1]', after: '[1]' }).output).toEqual({
      equal: true,
      changes: [],
    });
  });

  it('explains bad input on stderr with exit code 1', () => {
    expect(run('format', { json: '{' })).toMatchObject({
      code: 1,
      error: expect.stringMatching(/^json is not valid JSON/),
    });
    expect(run('query', { json: '{}', path: 'a..b' })).toMatchObject({
      code: 1,
      error: expect.stringMatching(/Cannot read the path/),
    });
    expect(run('diff', { before: '1', after: 'x' })).toMatchObject({
      code: 1,
      error: expect.stringMatching(/^after is not valid JSON/),
    });
  });
});

describe('the json pack, confined', () => {
  it('declares the least: its own folder, nothing else', async () => {
    const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked'));
    expect(checked.manifest.permissions).toEqual({
      filesystem: { read: [], write: [] },
      network: { access: 'none', hosts: [] },
      env: [],
      subprocess: false,
    });
  });

  it.skipIf(!sandbox.available)(
    `runs its tools with that least [the OS sandbox: ${sandbox.reason}]`,
    async () => {
      const session = await openPackSession({ dir: packDir, projectRoot: temp, confine: {} });
      try {
        expect(
          readStructured(await session.call('format', { json: '{"b":1,"a":2}', sort_keys: true })),
        ).toEqual({ json: '{\n  "a": 2,\n  "b": 1\n}' });
      } finally {
        await session.close();
      }
    },
  );
});
