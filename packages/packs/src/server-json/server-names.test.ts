import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolpackError } from '@toolpack/core';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import { isValidPackName } from '../names/pack-names.ts';
import {
  DEFAULT_SERVER_NAMESPACE,
  isValidServerNamespace,
  MAX_SERVER_NAMESPACE_LENGTH,
  toPackName,
  toServerName,
} from './server-names.ts';

/** The `name` rule of the vendored server.json schema, read from the file itself. */
const schema = JSON.parse(
  readFileSync(path.join(import.meta.dirname, 'fixtures', 'server.schema.json'), 'utf8'),
) as {
  definitions: {
    ServerDetail: {
      properties: { name: { pattern: string; minLength: number; maxLength: number } };
    };
  };
};
const nameRule = schema.definitions.ServerDetail.properties.name;
const namePattern = new RegExp(nameRule.pattern, 'u');
function isSchemaName(name: string): boolean {
  const length = Array.from(name).length;
  return namePattern.test(name) && length >= nameRule.minLength && length <= nameRule.maxLength;
}

const segment = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,63}$/);
const packName = fc.oneof(
  segment,
  fc.tuple(segment, segment).map(([scope, name]) => `${scope}/${name}`),
);
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const namespace = fc
  .array(label, { minLength: 2, maxLength: 6 })
  .map((labels) => labels.join('.'))
  .filter((text) => text.length <= MAX_SERVER_NAMESPACE_LENGTH);

describe('pack <-> server names', () => {
  it('maps plain and scoped packs under the namespace', () => {
    expect(toServerName('jira')).toBe('dev.toolpack/jira');
    expect(toServerName('acme/jira')).toBe('dev.toolpack.acme/jira');
    expect(toServerName('acme/jira', { namespace: 'com.example.packs' })).toBe(
      'com.example.packs.acme/jira',
    );
    expect(toPackName('dev.toolpack/jira')).toBe('jira');
    expect(toPackName('dev.toolpack.acme/jira')).toBe('acme/jira');
    expect(toPackName('com.example.packs/jira', { namespace: 'com.example.packs' })).toBe('jira');
    expect(DEFAULT_SERVER_NAMESPACE).toBe('dev.toolpack');
  });

  it('answers undefined for names outside the namespace or not spelled as it maps them', () => {
    for (const name of [
      'io.github.user/jira',
      'dev.toolpackx/jira',
      'dev/jira',
      'dev.toolpack/Jira',
      'dev.toolpack.Acme/jira',
      'dev.toolpack.a.b/jira',
      'dev.toolpack./jira',
      'dev.toolpack/',
      'dev.toolpack',
      'dev.toolpack/a/b',
      'dev.toolpack/-x',
      'dev.toolpack/jira.v2',
      '',
    ])
      expect(toPackName(name), name).toBeUndefined();
  });

  it('refuses a namespace that is not reverse-DNS and a pack name that is not valid', () => {
    for (const bad of [
      'toolpack',
      'Dev.Toolpack',
      'dev..toolpack',
      '.dev.toolpack',
      'dev.-x',
      'a/b.c',
    ])
      expect(() => toServerName('jira', { namespace: bad }), bad).toThrow(ToolpackError);
    expect(isValidServerNamespace(`a.${'b'.repeat(MAX_SERVER_NAMESPACE_LENGTH)}`)).toBe(false);
    expect(() => toServerName('Jira')).toThrow(/not a valid pack name/);
  });

  it('round-trips every pack name under every namespace, and every mapped name fits the schema', () => {
    fc.assert(
      fc.property(packName, namespace, (name, ns) => {
        const server = toServerName(name, { namespace: ns });
        expect(isSchemaName(server)).toBe(true);
        expect(toPackName(server, { namespace: ns })).toBe(name);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('maps back only what it would have given: toPackName is the exact inverse where defined', () => {
    const serverish = fc.oneof(
      fc.string(),
      fc
        .tuple(
          fc.constantFrom('dev.toolpack', 'dev.toolpack.', 'dev.toolpackx', 'io.github'),
          fc.string({ maxLength: 12 }),
          fc.constantFrom('/', '//', ''),
          fc.string({ maxLength: 12 }),
        )
        .map((parts) => parts.join('')),
      packName.map((name) => toServerName(name)),
      fc
        .tuple(packName, fc.constantFrom('/', '/x', '.x', 'X', '-'))
        .map(([name, tail]) => `${toServerName(name)}${tail}`),
    );
    fc.assert(
      fc.property(serverish, (server) => {
        const pack = toPackName(server);
        if (pack === undefined) return;
        expect(isValidPackName(pack)).toBe(true);
        expect(toServerName(pack)).toBe(server);
      }),
      { numRuns: fuzzRuns(3000) },
    );
  });

  it('fits the longest pack name under the longest namespace in the schema', () => {
    const longest = `${'a'.repeat(64)}/${'b'.repeat(64)}`;
    const ns = `${'c'.repeat(MAX_SERVER_NAMESPACE_LENGTH - 2)}.d`;
    expect(isSchemaName(toServerName(longest, { namespace: ns }))).toBe(true);
  });
});
