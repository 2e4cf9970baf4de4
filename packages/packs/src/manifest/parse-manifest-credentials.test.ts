import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandSecretPath, parseManifest } from './parse-manifest.ts';

const read = (name: string) =>
  readFileSync(path.join(import.meta.dirname, 'fixtures', name), 'utf8');

const problems = (diagnostics: readonly { code: string; line?: number; message: string }[]) =>
  diagnostics.map((d) => `${d.code} ${d.line} ${d.message}`);

describe('credentials: in toolpack.yaml', () => {
  it("reads a project's bindings, each with the line it is written on", () => {
    const { manifest, diagnostics } = parseManifest(read('credentials-project.yaml'), {
      path: '/work/project/toolpack.yaml',
    });
    expect(diagnostics).toEqual([]);
    expect(manifest?.credentials).toEqual([
      {
        parameters: ['Credential'],
        tools: ['Get-AD*'],
        username: { env: 'AD_USER' },
        password: { env: 'AD_PASSWORD' },
        origin: 'toolpack.yaml:4',
      },
      {
        parameters: ['Token'],
        password: { file: '~/.config/toolpack/secrets/api.txt' },
        origin: 'toolpack.yaml:8',
      },
      {
        username: 'svc-backup',
        password: { file: '/etc/toolpack/backup.txt' },
        origin: 'toolpack.yaml:10',
      },
    ]);
  });

  it('has no bindings when the key is absent', () => {
    const { manifest } = parseManifest('sources: [{ scripts: scripts }]\n', {
      path: '/work/project/toolpack.yaml',
    });
    expect(manifest?.credentials).toEqual([]);
  });

  it('refuses a bad env name, a missing password, unknown keys, a relative secrets file and one inside the project', () => {
    const { manifest, diagnostics } = parseManifest(read('credentials-project-bad.yaml'), {
      path: '/PROJECT/toolpack.yaml',
    });
    expect(manifest).toBeUndefined();
    expect(problems(diagnostics)).toEqual([
      'E_MANIFEST_FIELD 4 credentials.0.password.env: "not a name" is not an environment variable name',
      'E_MANIFEST_FIELD 5 credentials.1.parameters: name at least one parameter, or leave parameters: out',
      'E_MANIFEST_FIELD 5 credentials.1.password: a secret is { env: VARIABLE } or { file: /path/outside/the/project }',
      'E_MANIFEST_FIELD 6 credentials.1: unknown key "pasword" (a credentials entry has parameters:, tools:, username:, password:)',
    ]);
    // The shape is right, so the project-relative checks run: each says where and why.
    const shaped = parseManifest(
      [
        'credentials:',
        '  - password: { file: secrets/ad.txt }',
        '  - password: { file: /PROJECT/secrets/ad.txt }',
        '  - password: { file: /PROJECTS/elsewhere.txt }',
        '',
      ].join('\n'),
      { path: '/PROJECT/toolpack.yaml' },
    );
    expect(problems(shaped.diagnostics)).toEqual([
      'E_MANIFEST_FIELD 2 credentials.0.password.file: "secrets/ad.txt" is relative: a secrets file is named from / or ~/ and lies outside the project.',
      'E_MANIFEST_FIELD 3 credentials.1.password.file: "/PROJECT/secrets/ad.txt" is inside the project, where it would be served, packed or committed with it.',
    ]);
  });

  it('lets a pack bind only the env it declares, a password only from a secret one, and never a file', () => {
    const good = parseManifest(read('credentials-pack.yaml'), {
      path: '/packs/ad-tools/toolpack.yaml',
      kind: 'pack',
    });
    expect(good.diagnostics).toEqual([]);
    expect(good.manifest?.credentials).toHaveLength(1);

    const bad = parseManifest(read('credentials-pack-bad.yaml'), {
      path: '/packs/ad-tools/toolpack.yaml',
      kind: 'pack',
    });
    expect(bad.manifest).toBeUndefined();
    expect(problems(bad.diagnostics)).toEqual([
      'E_MANIFEST_FIELD 11 credentials.0.password.env: AWS_SECRET_ACCESS_KEY is not declared in env:, and a pack binds credentials only from the env it declares.',
      'E_MANIFEST_FIELD 13 credentials.1.password.env: ADTOOLS_USER is declared without secret: true, and a password is a secret.',
      'E_MANIFEST_FIELD 15 credentials.2.password.file: a pack cannot read a secrets file; it binds credentials only from the env it declares.',
    ]);
  });
});

describe('expandSecretPath', () => {
  it('starts ~/ at the home folder and leaves other paths alone', () => {
    expect(expandSecretPath('~/.config/x.txt', '/home/ada')).toBe('/home/ada/.config/x.txt');
    expect(expandSecretPath('/etc/x.txt')).toBe('/etc/x.txt');
    expect(expandSecretPath('~/x')).toBe(path.join(os.homedir(), 'x'));
  });
});
