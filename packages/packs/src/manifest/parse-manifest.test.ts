import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse-manifest.ts';

const fixture = (name: string) => {
  const file = path.join(import.meta.dirname, 'fixtures', name);
  return { file, text: readFileSync(file, 'utf8') };
};

describe('parseManifest', () => {
  it('reads a pack manifest with every field', () => {
    const { file, text } = fixture('pack.yaml');
    const { manifest, diagnostics } = parseManifest(text, { path: file, kind: 'pack' });
    expect(manifest).toMatchObject({
      name: 'jira',
      version: '1.2.0',
      description: 'Jira issue tools',
      sources: [
        { tools: 'tools' },
        { scripts: 'scripts', include: ['get_*'] },
        { module: 'src/index.ts', prefix: false },
        { workflows: 'workflows' },
      ],
      env: [
        { name: 'JIRA_API_TOKEN', required: true, secret: true },
        {
          name: 'JIRA_BASE_URL',
          required: true,
          secret: false,
          description: 'The site, e.g. https://acme.atlassian.net',
        },
      ],
      policy: { deny: ['*_delete*'], readOnly: false },
      interpreters: { '.bas': ['basic', '--run'] },
    });
    // Tags match case-insensitively: the duplicate is dropped, the author's spelling kept.
    expect(manifest?.tags).toEqual(['MCPTools', 'jira', 'Atlassian']);
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([['W_DUPLICATE_TAG', 5]]);
  });

  it('reads a project manifest with packs, aliases and composition settings', () => {
    const { file, text } = fixture('project.yaml');
    const { manifest, diagnostics } = parseManifest(text, { path: file });
    expect(diagnostics).toEqual([]);
    expect(manifest?.dependencies).toEqual([
      { alias: 'jira', name: 'jira', range: '^1.2.0' },
      { alias: 'tracker', name: 'acme/issues', range: '~2.1' },
      { alias: 'wiki', name: 'acme/wiki', range: '1.x' },
    ]);
    expect(manifest).toMatchObject({
      maxTools: 80,
      strict: true,
      lenientHelp: true,
      registry: './registry/packs',
      exclude: ['*_delete*'],
    });
  });

  it('reports every problem at once, each with its path and line', () => {
    const { file, text } = fixture('broken.yaml');
    const { manifest, diagnostics } = parseManifest(text, { path: file, kind: 'pack' });
    expect(manifest).toBeUndefined();
    const lines = diagnostics.map((d) => `${d.line}: ${d.severity} ${d.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^1: error name: "Jira Tools" is not a valid pack name/),
        expect.stringMatching(/^2: error version: 1\.2 is not a semver version: quote it/),
        '3: error description: the description is empty',
        expect.stringMatching(/^4: error tags\.1: "no spaces allowed" is not a valid tag/),
        expect.stringMatching(/^6: error sources\.0: .*script/),
        expect.stringMatching(
          /^7: error sources\.1: a source has one location, not tools and scripts/,
        ),
        expect.stringMatching(
          /^10: error env\.0\.name: "1BAD" is not an environment variable name/,
        ),
        expect.stringMatching(/^10: error env\.0\.required: expected boolean/),
        '12: error packs.jira: "^x" is not a valid semver range',
        '13: error packs.j2: "" is not a valid semver range',
        expect.stringMatching(/^14: error policy\.deny: expected array/),
        expect.stringMatching(/^15: error maxTools: /),
        '17: error interpreters.bas: "bas" is not a file extension such as ".bas"',
        '18: warning tgas: unknown key, ignored.',
      ]),
    );
    expect(diagnostics.find((d) => d.code === 'W_MANIFEST_UNKNOWN_KEY')?.hint).toBe(
      'Did you mean tags?',
    );
    expect(diagnostics.every((d) => d.path === file)).toBe(true);
  });

  it('reads schemaDialect:, and names the dialects at its line when it is none of them', () => {
    expect(
      parseManifest('schemaDialect: exact\n', { path: 'toolpack.yaml' }).manifest,
    ).toMatchObject({ schemaDialect: 'exact' });
    const { manifest, diagnostics } = parseManifest('sources: []\nschemaDialect: strict\n', {
      path: 'toolpack.yaml',
    });
    expect(manifest).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      [
        'E_MANIFEST_FIELD',
        2,
        'schemaDialect: "strict" is not a schema dialect: use portable, exact, openai-strict',
      ],
    ]);
  });

  it('reads license: and repository: (the gallery shows them), refusing markup and non-web links at their lines', () => {
    expect(
      parseManifest('license: MIT OR Apache-2.0\nrepository: https://example.com/acme/jira\n', {
        path: 'toolpack.yaml',
      }).manifest,
    ).toMatchObject({ license: 'MIT OR Apache-2.0', repository: 'https://example.com/acme/jira' });
    const { manifest, diagnostics } = parseManifest(
      'license: "<img src=x onerror=alert(1)>"\nrepository: javascript:alert(1)\n',
      { path: 'toolpack.yaml' },
    );
    expect(manifest).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['E_MANIFEST_FIELD', 1],
      ['E_MANIFEST_FIELD', 2],
    ]);
    expect(diagnostics[1]?.message).toContain('is not an http(s) URL');
  });

  it('reads progressTimeoutCap: as a duration, and refuses one under a second at its line', () => {
    const read = (text: string) => parseManifest(text, { path: 'toolpack.yaml' }).manifest;
    expect(read('progressTimeoutCap: 2h\n')).toMatchObject({ progressTimeoutCap: 7_200_000 });
    expect(read('progressTimeoutCap: 90\n')).toMatchObject({ progressTimeoutCap: 90_000 });
    const { manifest, diagnostics } = parseManifest('sources: []\nprogressTimeoutCap: 10ms\n', {
      path: 'toolpack.yaml',
    });
    expect(manifest).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      [
        'E_MANIFEST_FIELD',
        2,
        'progressTimeoutCap: "10ms" is not a duration of a second or more (such as 30m, 2h or 3600)',
      ],
    ]);
  });

  it('requires name, version, description and sources of a pack, not of a project', () => {
    const { diagnostics } = parseManifest('tags: [x]\n', { path: 'toolpack.yaml', kind: 'pack' });
    expect(diagnostics.map((d) => d.message)).toEqual([
      'name: a pack needs a name.',
      'version: a pack needs a version.',
      'description: a pack needs a description.',
      'sources: a pack without sources has no tools.',
    ]);
    expect(parseManifest('tags: [x]\n', { path: 'toolpack.yaml' }).diagnostics).toEqual([]);
  });

  it('refuses pack sources outside the pack and module names looked up elsewhere', () => {
    const { file, text } = fixture('escaping-pack.yaml');
    const { manifest, diagnostics } = parseManifest(text, { path: file, kind: 'pack' });
    expect(manifest).toBeUndefined();
    expect(diagnostics.map((d) => `${d.line} ${d.message}`)).toEqual([
      '5 sources.0.tools: "../../other-project/tools" leaves the pack folder.',
      '6 sources.1.scripts: "/etc" is not relative to the pack folder.',
      '7 sources.2.module: "PSReadLine" is not a module file (.psd1, .psm1, .js, .mjs, .ts): a module name would be looked up outside the pack.',
    ]);
  });

  it('reports YAML syntax errors with their line, and an empty file as an empty project', () => {
    const { diagnostics } = parseManifest('name: x\n  bad: [\n', { path: 'toolpack.yaml' });
    expect(diagnostics[0]).toMatchObject({ severity: 'error', code: 'E_MANIFEST_YAML' });
    expect(diagnostics[0]?.line).toBeGreaterThan(0);
    expect(parseManifest('', { path: 'toolpack.yaml' }).manifest).toMatchObject({
      sources: [],
      packs: {},
      dependencies: [],
    });
    expect(parseManifest('- a\n', { path: 'toolpack.yaml' }).diagnostics[0]?.message).toMatch(
      /must be a mapping/,
    );
  });

  it('refuses two packs: entries served under one alias', () => {
    const { diagnostics } = parseManifest('packs:\n  jira: ^1.0.0\n  acme/jira: ^2.0.0\n', {
      path: 'toolpack.yaml',
    });
    expect(diagnostics.map((d) => d.message)).toEqual([
      'packs.acme/jira: acme/jira and jira would both be served as jira_*: give one an alias (alias: name@range)',
    ]);
  });

  // Issue 14 finding 14: the schema's record drops a `__proto__` key without an issue, so
  // the entry vanished from `dependencies` and nothing said so.
  it('reports a packs: __proto__ entry at its line instead of dropping it', () => {
    for (const [text, line] of [
      ['# project\npacks:\n  json: ^1.0.0\n  __proto__: jira@^1.0.0\n', 4],
      ['packs: { __proto__: "^1.0.0" }\n', 1],
      ['packs:\n  __proto__: { polluted: true }\n', 2],
    ] as const) {
      const { manifest, diagnostics } = parseManifest(text, { path: 'toolpack.yaml' });
      expect(manifest).toBeUndefined();
      expect(diagnostics).toEqual([
        expect.objectContaining({
          severity: 'error',
          code: 'E_MANIFEST_FIELD',
          message: expect.stringMatching(/^packs\.__proto__: "__proto__" is not a valid /),
          path: 'toolpack.yaml',
          line,
        }),
      ]);
    }
    // Nothing was polluted on the way.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('typos in a project manifest', () => {
  it('an unknown top-level key is an error with its line and the key it meant (every tool would be gone)', () => {
    const text = '# my project\nsoruces:\n  - scripts: scripts\n';
    // Without the error the typo is harmless-looking: the manifest parses with no sources at all.
    const { manifest, diagnostics } = parseManifest(text, { path: 'toolpack.yaml' });
    expect(manifest).toBeUndefined();
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        code: 'E_MANIFEST_UNKNOWN_KEY',
        message: 'soruces: unknown key.',
        path: 'toolpack.yaml',
        line: 2,
        hint: 'Did you mean sources?',
      },
    ]);
  });

  it("a pack's unknown key stays a warning, so a pack written for a newer Toolpack still installs", () => {
    const text =
      'name: p\nversion: 1.0.0\ndescription: d\nsources: [{ tools: tools }]\nfuture: 1\n';
    const { manifest, diagnostics } = parseManifest(text, { path: 'toolpack.yaml', kind: 'pack' });
    expect(manifest?.name).toBe('p');
    expect(diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual([
      'warning W_MANIFEST_UNKNOWN_KEY',
    ]);
  });

  it("a misspelt key of a source is suggested at its line (script: -> scripts:), and the source's location line is kept", () => {
    const typo = parseManifest('sources:\n  - scripts: a\n  - script: b\n', {
      path: 'toolpack.yaml',
    });
    expect(typo.diagnostics[0]).toMatchObject({
      line: 3,
      message: expect.stringMatching(/^sources\.1: unknown key "script"/),
      hint: expect.stringMatching(/^Did you mean scripts:\? Each source is one of/),
    });
    // A key nothing is close to keeps the plain list of keys.
    const far = parseManifest('sources:\n  - whatever: b\n', { path: 'toolpack.yaml' });
    expect(far.diagnostics[0]?.hint).toMatch(/^Each source is one of/);
    const fine = parseManifest('# project\nsources:\n  - scripts: a\n  - { module: m.ts }\n', {
      path: 'toolpack.yaml',
    });
    expect(fine.sourceLines).toEqual([3, 4]);
  });

  it('a policy typo gets the hint about policies, not the one about sources', () => {
    const { diagnostics } = parseManifest('policy:\n  alow: ["*"]\n', { path: 'toolpack.yaml' });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      line: 2,
      message: expect.stringMatching(/^policy: unknown key "alow"/),
    });
    expect(diagnostics[0]?.hint).toMatch(/^A policy is \{ allow: \[wildcards\]/);
    expect(diagnostics[0]?.hint).not.toMatch(/source/);
  });
});

describe('permissions:', () => {
  const pack = (permissions: string) =>
    `name: p\nversion: 1.0.0\ndescription: d\nsources: [{ tools: tools }]\nenv:\n  - name: P_TOKEN\n${permissions}`;

  it("reads a pack's permissions, normalised, with its env: names merged in", () => {
    const { manifest, diagnostics } = parseManifest(
      pack(
        'permissions:\n  filesystem: { read: [project/docs], write: [temp, temp] }\n  network: { access: any, hosts: [API.example.com] }\n  env: [OTHER]\n  subprocess: true\n',
      ),
      { path: 'toolpack.yaml', kind: 'pack' },
    );
    expect(diagnostics).toEqual([]);
    expect(manifest?.permissions).toEqual({
      filesystem: { read: ['project/docs', 'temp'], write: ['temp'] },
      network: { access: 'any', hosts: ['api.example.com'] },
      env: ['OTHER', 'P_TOKEN'],
      subprocess: true,
    });
  });

  it('is the least (plus the env: names) when a pack declares none', () => {
    const { manifest } = parseManifest(pack(''), { path: 'toolpack.yaml', kind: 'pack' });
    expect(manifest?.permissions).toEqual({
      filesystem: { read: [], write: [] },
      network: { access: 'none', hosts: [] },
      env: ['P_TOKEN'],
      subprocess: false,
    });
  });

  it('reports unknown keys and bad roots at their own lines, with the permissions hint', () => {
    const { manifest, diagnostics } = parseManifest(
      pack(
        'permissions:\n  filesystem:\n    read: [project, /etc]\n    write:\n      - pack\n    exec: [x]\n  netwrok: any\n  network: { access: none, hosts: [a.example.com] }\n',
      ),
      { path: 'toolpack.yaml', kind: 'pack' },
    );
    expect(manifest).toBeUndefined();
    expect(diagnostics.map((d) => `${d.line}: ${d.message}`)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^9: permissions\.filesystem\.read\.1: "\/etc" is not a filesystem root/,
        ),
        expect.stringMatching(
          /^11: permissions\.filesystem\.write\.0: a pack's own folder is never writable/,
        ),
        expect.stringMatching(
          /^12: permissions\.filesystem: unknown key "exec" \(filesystem has read:, write:\)/,
        ),
        expect.stringMatching(
          /^13: permissions: unknown key "netwrok" \(permissions has filesystem:/,
        ),
        expect.stringMatching(
          /^14: permissions\.network\.access: hosts are only reachable with access: any/,
        ),
      ]),
    );
    expect(diagnostics).toHaveLength(5);
    expect(diagnostics.every((d) => d.hint?.startsWith('permissions: {'))).toBe(true);
  });

  it("refuses a project's top-level permissions at their line, pointing at sandbox: true", () => {
    const { manifest, diagnostics } = parseManifest(
      'sources: [{ tools: tools }]\npermissions:\n  network: any\n',
      { path: 'toolpack.yaml' },
    );
    expect(manifest).toBeUndefined();
    expect(diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'E_MANIFEST_FIELD',
        line: 2,
        message: expect.stringMatching(/^permissions: a project's own tools are not confined/),
        hint: expect.stringMatching(/sandbox: true/),
      }),
    ]);
    // A pack's own folder served while its author writes it keeps them.
    expect(
      parseManifest(pack('permissions: { network: any }\n'), { path: 'toolpack.yaml' }).manifest
        ?.permissions.network.access,
    ).toBe('any');
  });

  it("gives the errors of a confined project source's permissions their lines too", () => {
    const { diagnostics } = parseManifest(
      'sources:\n  - tools: tools\n    sandbox: true\n    permissions:\n      filesystem: { read: [../up] }\n      envv: [X]\n  - tools: more\n    permissions: { network: any }\n',
      { path: 'toolpack.yaml' },
    );
    expect(diagnostics.map((d) => `${d.line}: ${d.message}`)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^5: sources\.0\.permissions\.filesystem\.read\.0: "\.\.\/up" is not a filesystem root/,
        ),
        expect.stringMatching(/^6: sources\.0\.permissions: unknown key "envv" \(permissions has/),
        expect.stringMatching(
          /^8: sources\.1\.permissions: permissions: only apply to a confined source/,
        ),
      ]),
    );
    expect(diagnostics).toHaveLength(3);
  });
});
