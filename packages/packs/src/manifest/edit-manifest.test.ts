import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addManifestSource, removeManifestPack, setManifestPack } from './edit-manifest.ts';
import { parseManifest } from './parse-manifest.ts';

const commented = readFileSync(
  path.join(import.meta.dirname, 'fixtures', 'commented-project.yaml'),
  'utf8',
);

describe('setManifestPack', () => {
  it('creates a manifest holding only the pack when there is none', () => {
    expect(setManifestPack(undefined, { alias: 'jira', name: 'jira', range: '^1.0.0' })).toBe(
      'packs:\n  jira: ^1.0.0\n',
    );
    const aliased = setManifestPack(undefined, { alias: 't', name: 'jira', range: '>=1.0.0 <2' });
    expect(parseManifest(aliased, { path: 'x' }).manifest?.dependencies).toEqual([
      { alias: 't', name: 'jira', range: '>=1.0.0 <2' },
    ]);
  });

  it('adds to an existing file keeping its comments, order and layout', () => {
    const text = setManifestPack(commented, { alias: 'jira', name: 'jira', range: '^1.2.0' });
    expect(text).toBe(
      commented.replace(
        '  json: ^1.0.0   # formatting tools\n',
        '  json: ^1.0.0   # formatting tools\n  jira: ^1.2.0\n',
      ),
    );
  });

  it('replaces the range of an existing entry in place', () => {
    const text = setManifestPack(commented, { alias: 'json', name: 'json', range: '^2.0.0' });
    expect(text).toBe(commented.replace('json: ^1.0.0', 'json: ^2.0.0'));
  });

  it('adds packs: to a file without it, and fills an empty packs:', () => {
    expect(
      setManifestPack('# mine\nsources: []\n', { alias: 'jira', name: 'jira', range: '^1.0.0' }),
    ).toBe('# mine\nsources: []\npacks:\n  jira: ^1.0.0\n');
    expect(setManifestPack('packs:\n', { alias: 'jira', name: 'jira', range: '^1.0.0' })).toBe(
      'packs:\n  jira: ^1.0.0\n',
    );
    expect(setManifestPack('packs: {}\n', { alias: 'jira', name: 'jira', range: '^1.0.0' })).toBe(
      'packs: { jira: ^1.0.0 }\n',
    );
  });

  it('refuses to rewrite a file that is not valid YAML', () => {
    expect(() => setManifestPack('packs: [\n', { alias: 'a', name: 'a', range: '1.0.0' })).toThrow(
      /not valid YAML/,
    );
  });
});

describe('removeManifestPack', () => {
  it('removes one entry and keeps everything else', () => {
    const added = setManifestPack(commented, { alias: 'jira', name: 'jira', range: '^1.2.0' });
    expect(removeManifestPack(added, 'jira')).toEqual({ text: commented, empty: false });
  });

  it('says when nothing of the user is left', () => {
    const created = setManifestPack(undefined, { alias: 'jira', name: 'jira', range: '^1.0.0' });
    expect(removeManifestPack(created, 'jira').empty).toBe(true);
    expect(removeManifestPack('# keep me\npacks:\n  jira: ^1.0.0\n', 'jira').empty).toBe(false);
  });
});

describe('addManifestSource', () => {
  it('creates a manifest holding only the source when there is none', () => {
    const text = addManifestSource(undefined, { key: 'scripts', path: '.' });
    expect(text).toBe('sources:\n  - scripts: .\n');
    expect(parseManifest(text, { path: 'x' }).manifest?.sources).toEqual([{ scripts: '.' }]);
  });

  it('adds a line under the last entry, keeping comments, order and layout byte for byte', () => {
    const text = addManifestSource(commented, { key: 'tools', path: 'systems/mcp/tools' });
    expect(text).toBe(
      commented.replace(
        '  - scripts: scripts   # our scripts\n',
        '  - scripts: scripts   # our scripts\n  - tools: systems/mcp/tools\n',
      ),
    );
    expect(parseManifest(text, { path: 'x' }).manifest?.sources).toEqual([
      { scripts: 'scripts' },
      { tools: 'systems/mcp/tools' },
    ]);
  });

  it('adds after an entry of several lines, at the entries’ own indent', () => {
    const text = 'sources:\n- module: W.psd1\n  prefix: true # mine\nmaxTools: 9\n';
    expect(addManifestSource(text, { key: 'scripts', path: 'scripts' })).toBe(
      'sources:\n- module: W.psd1\n  prefix: true # mine\n- scripts: scripts\nmaxTools: 9\n',
    );
  });

  it('adds sources: to a file without it, and fills an empty or flow list', () => {
    expect(addManifestSource('# mine\npacks:\n  jira: ^1.0.0', { key: 'scripts', path: '.' })).toBe(
      '# mine\npacks:\n  jira: ^1.0.0\nsources:\n  - scripts: .\n',
    );
    expect(addManifestSource('# mine\nsources: []\n', { key: 'scripts', path: '.' })).toBe(
      '# mine\nsources:\n  - scripts: .\n',
    );
    expect(addManifestSource('sources:\n', { key: 'tools', path: 'tools' })).toBe(
      'sources:\n  - tools: tools\n',
    );
    const flow = addManifestSource('sources: [{ tools: tools }] # both\n', {
      key: 'module',
      path: 'src/add-numbers.ts',
    });
    expect(flow).toContain('# both');
    expect(parseManifest(flow, { path: 'x' }).manifest?.sources).toEqual([
      { tools: 'tools' },
      { module: 'src/add-numbers.ts' },
    ]);
  });

  it('quotes a path YAML would read as something else', () => {
    const text = addManifestSource(undefined, { key: 'scripts', path: 'yes' });
    expect(parseManifest(text, { path: 'x' }).manifest?.sources).toEqual([{ scripts: 'yes' }]);
  });

  it('refuses to rewrite a file that is not valid YAML', () => {
    expect(() => addManifestSource('sources: [\n', { key: 'scripts', path: '.' })).toThrow(
      /not valid YAML/,
    );
  });
});
