import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS, ToolpackError } from '@toolpack/core';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import { readManifest } from '../manifest/parse-manifest.ts';
import type { VersionDoc } from '../registry/registry-types.ts';
import { buildVersionDoc } from '../registry/version-doc.ts';
import { SERVER_JSON_SCHEMA_URL, toServerJson } from './server-json.ts';
import { toPackName } from './server-names.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..');
const schemaText = readFileSync(
  path.join(import.meta.dirname, 'fixtures', 'server.schema.json'),
  'utf8',
);

/**
 * The vendored schema is draft-07, so ajv's default class; not strict, because the schema uses
 * OpenAPI's `example` and requires properties an `anyOf` branch does not declare. Its two
 * string formats get checks of their own (ajv-formats is not a dependency here): `uri` must
 * parse as an absolute URL.
 */
function compileSchema(): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat('uri', (text: string) => /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text));
  ajv.addFormat('uri-template', true);
  return ajv.compile(JSON.parse(schemaText) as object);
}
const validate = compileSchema();
function expectValid(document: unknown): void {
  const ok = validate(document);
  expect(ok ? [] : validate.errors, JSON.stringify(document).slice(0, 200)).toEqual([]);
}

const REGISTRY = 'https://packs.example.com';
const CLI_VERSION = '0.4.0';

function docFor(overrides: Partial<VersionDoc> = {}): VersionDoc {
  return {
    name: 'jira',
    version: '1.1.0',
    description: 'Jira issue tools',
    tags: ['MCPTools', 'jira'],
    tools: [{ name: 'search', description: 'Search', inputSchema: { type: 'object' } }],
    env: [],
    permissions: structuredClone(LEAST_PERMISSIONS),
    dist: {
      tarball: `${REGISTRY}/v0/blobs/sha512/${'a'.repeat(128)}.tgz`,
      integrity: 'sha512-AAAA',
      size: 10,
      fileCount: 1,
    },
    ...overrides,
  };
}

describe('toServerJson', () => {
  it('the schema really constrains: a document breaking its rules is refused', () => {
    const good = toServerJson(docFor(), { registry: REGISTRY, cliVersion: CLI_VERSION });
    expectValid(good);
    for (const broken of [
      { ...good, name: 'no-slash' },
      { ...good, description: 'x'.repeat(101) },
      { ...good, websiteUrl: 'not a url' },
      { ...good, packages: [{ ...good.packages[0], version: 'latest' }] },
      { ...good, packages: [{ ...good.packages[0], transport: { type: 'carrier-pigeon' } }] },
    ])
      expect(validate(broken), JSON.stringify(broken).slice(0, 120)).toBe(false);
  });

  it('describes a version as the CLI serving it, with its env as environment variables', () => {
    const doc = docFor({
      name: 'acme/jira',
      env: [
        { name: 'JIRA_BASE_URL', required: true, secret: false, description: 'Your Jira site' },
        { name: 'JIRA_API_TOKEN', required: true, secret: true },
        { name: 'JIRA_PROJECT', required: false, secret: false, description: '  ' },
      ],
      deprecated: 'Use 2.x',
    });
    const server = toServerJson(doc, {
      registry: `${REGISTRY}/`,
      cliVersion: CLI_VERSION,
      namespace: 'com.example.packs',
    });
    expectValid(server);
    expect(server).toMatchObject({
      $schema: SERVER_JSON_SCHEMA_URL,
      name: 'com.example.packs.acme/jira',
      title: 'acme/jira',
      version: '1.1.0',
      websiteUrl: `${REGISTRY}/packs/acme/jira?version=1.1.0`,
    });
    expect(server.packages).toEqual([
      {
        registryType: 'npm',
        identifier: '@toolpack/cli',
        version: CLI_VERSION,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments: [
          { type: 'positional', value: 'serve' },
          { type: 'named', name: '--pack', value: 'acme/jira@1.1.0' },
          { type: 'named', name: '--registry', value: `${REGISTRY}/` },
        ],
        environmentVariables: [
          {
            name: 'JIRA_BASE_URL',
            description: 'Your Jira site',
            isRequired: true,
            isSecret: false,
            format: 'string',
          },
          { name: 'JIRA_API_TOKEN', isRequired: true, isSecret: true, format: 'string' },
          { name: 'JIRA_PROJECT', isRequired: false, isSecret: false, format: 'string' },
        ],
      },
    ]);
    const meta =
      server._meta['io.modelcontextprotocol.registry/publisher-provided']['dev.toolpack'];
    expect(meta).toMatchObject({
      pack: 'acme/jira',
      version: '1.1.0',
      tags: ['MCPTools', 'jira'],
      tools: ['search'],
      integrity: 'sha512-AAAA',
      deprecated: 'Use 2.x',
    });
    expect(meta.permissions).toContain('network: none');
  });

  it('cuts a long description to the schema limit with an ellipsis, and fills a blank one', () => {
    const long = toServerJson(docFor({ description: `${'word '.repeat(40)}end` }), {
      registry: REGISTRY,
      cliVersion: CLI_VERSION,
    });
    expectValid(long);
    expect(Array.from(long.description)).toHaveLength(100);
    expect(long.description.endsWith('word…')).toBe(true);
    const emoji = toServerJson(docFor({ description: '🧰'.repeat(150) }), {
      registry: REGISTRY,
      cliVersion: CLI_VERSION,
    });
    expectValid(emoji);
    expect(Array.from(emoji.description)).toHaveLength(100);
    const blank = toServerJson(docFor({ description: '   ' }), {
      registry: REGISTRY,
      cliVersion: CLI_VERSION,
    });
    expect(blank.description).toBe('The jira tool pack.');
  });

  it('a folder registry is passed through, and gives no website', () => {
    const server = toServerJson(docFor(), { registry: '/srv/packs', cliVersion: CLI_VERSION });
    expectValid(server);
    expect(server.websiteUrl).toBeUndefined();
    expect(server.packages[0]?.packageArguments.at(-1)).toEqual({
      type: 'named',
      name: '--registry',
      value: '/srv/packs',
    });
  });

  it('refuses a CLI version that is not exact', () => {
    for (const cliVersion of ['latest', '^0.4.0', 'v0.4.0', ''])
      expect(() => toServerJson(docFor(), { registry: REGISTRY, cliVersion })).toThrow(
        ToolpackError,
      );
  });

  it('every official pack gives a valid document', async () => {
    const folders = readdirSync(path.join(repo, 'registry', 'packs'));
    expect(folders.length).toBeGreaterThan(3);
    for (const folder of folders) {
      const { manifest } = await readManifest(path.join(repo, 'registry', 'packs', folder), {
        kind: 'pack',
      });
      expect(manifest, folder).toBeDefined();
      const doc = buildVersionDoc({
        manifest: manifest!,
        tools: [],
        tarball: `${REGISTRY}/v0/blobs/x.tgz`,
        integrity: 'sha512-AAAA',
        size: 1,
        fileCount: 1,
      });
      const server = toServerJson(doc, { registry: REGISTRY, cliVersion: CLI_VERSION });
      expectValid(server);
      expect(toPackName(server.name)).toBe(manifest!.name);
      expect(server.packages[0]?.environmentVariables.map((env) => env.name)).toEqual(
        manifest!.env.map((env) => env.name),
      );
    }
  });

  it('every generated version (scoped names, env, secrets, long and odd descriptions) validates', () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,63}$/);
    const name = fc.oneof(
      segment,
      fc.tuple(segment, segment).map(([a, b]) => `${a}/${b}`),
    );
    const version = fc
      .tuple(
        fc.nat(99),
        fc.nat(99),
        fc.nat(99),
        fc.constantFrom('', '-beta.1', '-rc.2+build.7', '+sha.abc'),
      )
      .map(([a, b, c, tail]) => `${a}.${b}.${c}${tail}`);
    const env = fc.record({
      name: fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,30}$/),
      required: fc.boolean(),
      secret: fc.boolean(),
      description: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
    });
    const description = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.constant(''),
    );
    const namespace = fc.constantFrom(undefined, 'dev.toolpack', 'com.example.packs', 'a.b');
    fc.assert(
      fc.property(
        name,
        version,
        description,
        fc.array(env, { maxLength: 6 }),
        namespace,
        fc.boolean(),
        (packName, packVersion, text, envs, ns, yanked) => {
          const doc = docFor({
            name: packName,
            version: packVersion,
            description: text,
            env: envs.map((entry) =>
              entry.description === undefined
                ? { name: entry.name, required: entry.required, secret: entry.secret }
                : entry,
            ),
            ...(yanked ? { yanked: true } : {}),
          });
          const server = toServerJson(doc, {
            registry: REGISTRY,
            cliVersion: CLI_VERSION,
            ...(ns === undefined ? {} : { namespace: ns }),
          });
          expectValid(server);
          expect(toPackName(server.name, ns === undefined ? {} : { namespace: ns })).toBe(packName);
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });
});
