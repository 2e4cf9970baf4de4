import { describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS } from '@toolpack/core';
import { computeIntegrity } from '../integrity/integrity.ts';
import { hashToolDefinition } from '../pins/tool-hash.ts';
import { findLockDrift, parseLockfile, serializeLockfile, type Lockfile } from './lockfile.ts';

const integrity = computeIntegrity(Buffer.from('x'));
const lock: Lockfile = {
  lockfileVersion: 1,
  packs: {
    tracker: {
      name: 'acme/jira',
      version: '2.1.3',
      resolved: 'http://r/v0/packs/acme%2Fjira/-/acme-jira-2.1.3.tgz',
      integrity,
    },
    json: { name: 'json', version: '1.0.0', resolved: 'file:../registry/packs/json', integrity },
  },
};

describe('toolpack.lock', () => {
  it('is JSON with aliases sorted, and reads back', () => {
    const text = serializeLockfile(lock);
    expect(text.indexOf('"json"')).toBeLessThan(text.indexOf('"tracker"'));
    expect(text.endsWith('}\n')).toBe(true);
    expect(parseLockfile(text, 'toolpack.lock')).toEqual({ lock, diagnostics: [] });
  });

  it('records approved permissions and tool pins, sorted and stable, and reads them back', () => {
    const pin = (name: string) =>
      hashToolDefinition({ name, description: name, inputSchema: { type: 'object' } });
    const pinned: Lockfile = structuredClone(lock);
    pinned.packs.tracker = {
      ...pinned.packs.tracker!,
      permissions: {
        filesystem: { read: ['temp', 'project'], write: ['temp'] },
        network: { access: 'any', hosts: ['b.example.com', 'a.example.com'] },
        env: ['Z_TOKEN', 'A_URL'],
        subprocess: false,
      },
      tools: { tracker_z: pin('tracker_z'), tracker_a: pin('tracker_a') },
    };
    const text = serializeLockfile(pinned);
    expect(text.indexOf('"tracker_a"')).toBeLessThan(text.indexOf('"tracker_z"'));
    expect(text.indexOf('"integrity"')).toBeLessThan(text.indexOf('"permissions"'));
    const read = parseLockfile(text, 'toolpack.lock').lock!;
    expect(read.packs.tracker?.permissions).toEqual({
      filesystem: { read: ['project', 'temp'], write: ['temp'] },
      network: { access: 'any', hosts: ['a.example.com', 'b.example.com'] },
      env: ['A_URL', 'Z_TOKEN'],
      subprocess: false,
    });
    expect(serializeLockfile(read)).toBe(text);
    // Entries written before permissions existed still read: nothing approved, nothing pinned.
    expect(read.packs.json).toEqual(lock.packs.json);
    expect(read.packs.json?.permissions).toBeUndefined();
    const bad = parseLockfile(
      JSON.stringify({
        lockfileVersion: 1,
        packs: {
          x: {
            ...lock.packs.json,
            permissions: { ...LEAST_PERMISSIONS, filesytem: {} },
            tools: { x_a: 'md5-x' },
          },
        },
      }),
      'toolpack.lock',
    );
    expect(bad.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/^packs\.x\.permissions: .*filesytem/),
      'packs.x.tools.x_a: not a tool hash (sha256-<base64>).',
    ]);
  });

  it('records approved interpreters sorted by extension, and refuses a malformed one', () => {
    const withInterpreters: Lockfile = structuredClone(lock);
    withInterpreters.packs.json = {
      ...withInterpreters.packs.json!,
      interpreters: { '.x': ['/bin/sh', '-c', 'true'], '.rb': ['ruby'] },
    };
    const text = serializeLockfile(withInterpreters);
    expect(text.indexOf('".rb"')).toBeLessThan(text.indexOf('".x"'));
    const read = parseLockfile(text, 'toolpack.lock').lock!;
    expect(read.packs.json?.interpreters).toEqual({
      '.rb': ['ruby'],
      '.x': ['/bin/sh', '-c', 'true'],
    });
    expect(serializeLockfile(read)).toBe(text);
    const bad = parseLockfile(
      JSON.stringify({
        lockfileVersion: 1,
        packs: { x: { ...lock.packs.json, interpreters: { '.sh': [] } } },
      }),
      'toolpack.lock',
    );
    expect(bad.lock).toBeUndefined();
    expect(bad.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/^packs\.x\.interpreters\.\.sh: /),
    ]);
  });

  it("records a module's feed and its required modules, and refuses a malformed module", () => {
    const withModules: Lockfile = {
      lockfileVersion: 1,
      packs: {
        echomain: {
          name: 'echomain',
          version: '1.0.0',
          resolved: 'https://feed.example.com/v3/flatcontainer/echomain/1.0.0/echomain.1.0.0.nupkg',
          integrity,
          source: 'corp',
          modules: [
            {
              id: 'EchoHelpers',
              version: '2.0.1',
              resolved: 'file:../repo/EchoHelpers.2.0.1.nupkg',
              integrity,
            },
          ],
        },
      },
    };
    const text = serializeLockfile(withModules);
    expect(parseLockfile(text, 'toolpack.lock')).toEqual({ lock: withModules, diagnostics: [] });
    const bad = JSON.parse(text) as { packs: { echomain: { modules: { version: string }[] } } };
    bad.packs.echomain.modules[0]!.version = '2.0.1.0';
    expect(
      parseLockfile(JSON.stringify(bad), 'toolpack.lock').diagnostics.map((d) => d.message),
    ).toEqual(['packs.echomain.modules.0.version: not a valid semver version.']);
  });

  it('reports what is wrong with a damaged one', () => {
    expect(parseLockfile('{', 'toolpack.lock').diagnostics[0]?.message).toMatch(/not valid JSON/);
    const bad = parseLockfile(
      JSON.stringify({
        lockfileVersion: 9,
        packs: { x: { name: 'x', version: '1', resolved: 'r', integrity: 'md5-x' } },
      }),
      'toolpack.lock',
    );
    expect(bad.diagnostics.map((d) => d.message)).toEqual([
      'lockfileVersion: lockfileVersion 9 is not supported (this version of Toolpack reads 1).',
      'packs.x.version: not a valid semver version.',
      'packs.x.integrity: not a sha512 integrity (sha512-<base64>).',
    ]);
  });

  it('finds drift between the manifest ranges and the lock', () => {
    expect(
      findLockDrift(
        [
          { alias: 'tracker', name: 'acme/jira', range: '^2.0.0' },
          { alias: 'json', name: 'json', range: '^2.0.0' },
          { alias: 'wiki', name: 'wiki', range: '^1.0.0' },
        ],
        lock,
      ).map((d) => d.message),
    ).toEqual([
      'json is locked at 1.0.0, outside ^2.0.0 in toolpack.yaml',
      'wiki (wiki@^1.0.0) is in toolpack.yaml but not in toolpack.lock',
    ]);
    expect(
      findLockDrift([{ alias: 'json', name: 'other', range: '*' }], lock).map((d) => d.kind),
    ).toEqual(['other-pack', 'not-in-manifest']);
  });
});
