import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '@toolpack/core';
import { describeToolFolder } from './describe-tool-folder.ts';
import { discoverToolFolders } from './discover-tool-folders.ts';

const EDGE = join(import.meta.dirname, 'fixtures', 'edge-tools');

describe('describeToolFolder', async () => {
  const result = await discoverToolFolders({ root: EDGE, cwd: '/' });
  const diagnostics = (folder: string): [string, string, number | undefined][] =>
    result.diagnostics
      .filter((d: Diagnostic) => d.path.startsWith(join(EDGE, folder)))
      .map((d) => [d.severity, d.code, d.line]);
  const tool = (name: string) => result.tools.find((t) => t.name === name);

  it('is pure: the same input gives the same plain-JSON result', async () => {
    const folder = join(EDGE, 'get-2fa-code');
    const input = {
      folder,
      metadataPath: join(folder, 'metadata.yaml'),
      metadata: readFileSync(join(folder, 'metadata.yaml'), 'utf8'),
      scriptPath: join(folder, 'script.ps1'),
      script: readFileSync(join(folder, 'script.ps1'), 'utf8'),
      scripts: ['script.ps1'],
    };
    const first = await describeToolFolder(input);
    expect(await describeToolFolder(input)).toEqual(first);
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
  });

  it('accepts the function dotbot itself would call for a name with hyphens', () => {
    expect(tool('get_2fa_code')?.invocation).toMatchObject({ functionName: 'Invoke-Get-2fa-code' });
    expect(diagnostics('get-2fa-code')).toEqual([['info', 'I_RENAMED', 1]]);
  });

  it('reads a hint given as a description, or as nothing, as declared', () => {
    expect(tool('described_hints')?.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
      destructiveHint: false,
    });
    expect(diagnostics('described-hints')).toEqual([]);
  });

  it('prefers inputSchema over input_schema, with a warning', () => {
    expect(tool('both_schema_keys')?.inputSchema.properties).toEqual({ a: { type: 'string' } });
    expect(diagnostics('both-schema-keys')).toEqual([['warning', 'W_DUPLICATE_KEY', 7]]);
  });

  it('prefers timeoutMs over timeout, with a warning', () => {
    expect(tool('timeout_both')?.timeoutMs).toBe(2500);
    expect(diagnostics('timeout-both')).toEqual([['warning', 'W_DUPLICATE_KEY', 3]]);
  });

  it('reads a lone required name as a list, with a warning', () => {
    expect(tool('required_string')?.inputSchema.required).toEqual(['path']);
    expect(diagnostics('required-string')).toEqual([['warning', 'W_SCHEMA_REQUIRED', 7]]);
  });

  it('refuses an output schema that is not an object', () => {
    expect(diagnostics('output-not-object')).toEqual([['error', 'E_OUTPUT_SCHEMA', 4]]);
  });

  it('reports JSON syntax errors with their line', () => {
    expect(diagnostics('bad-json')).toEqual([['error', 'E_YAML_SYNTAX', 4]]);
  });

  it('refuses an empty metadata file', () => {
    expect(diagnostics('empty-metadata')).toEqual([['error', 'E_METADATA_SHAPE', 1]]);
  });

  it('refuses a file whose aliases would expand without end', () => {
    expect(diagnostics('alias-bomb')).toEqual([['error', 'E_YAML_SYNTAX', undefined]]);
  });

  it('refuses a title, name or annotations of the wrong kind', () => {
    expect(diagnostics('title-not-string')).toEqual([['error', 'E_METADATA_FIELD', 2]]);
    expect(diagnostics('name-not-string')).toEqual([['error', 'E_METADATA_FIELD', 1]]);
    expect(diagnostics('annotations-list')).toEqual([['error', 'E_METADATA_FIELD', 3]]);
  });

  it('serves only the folders without errors', () => {
    expect(result.tools.map((t) => t.name).sort()).toEqual([
      'both_schema_keys',
      'described_hints',
      'get_2fa_code',
      'required_string',
      'timeout_both',
    ]);
  });
});
