// The PowerShell host's compiled JSON codecs (New-JsonCodecs in assets/host.ps1) against the
// host's own PowerShell reader and general writer, on the real engine: the reader must give
// the same types and values, and the writer the same text or decline the value, so a call's
// answer does not depend on which of them wrote it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { resolveHostScriptPath } from '../asset-paths.ts';

const script = fileURLToPath(new URL('./fixtures/codecs/compare-codecs.ps1', import.meta.url));

interface Comparison {
  kind: 'read' | 'write';
  input?: string;
  expected: string;
  actual?: string;
  name?: string;
  wrote?: boolean;
  direct?: string;
  through?: string;
  short?: string;
  shortTruncated?: boolean;
  shortExpected?: string;
  shortExpectedTruncated?: boolean;
}

function compare(): Comparison[] {
  const run = spawnSync(
    'pwsh',
    [
      '-NoLogo',
      '-NoProfile',
      '-NonInteractive',
      '-File',
      script,
      '-HostScript',
      resolveHostScriptPath(),
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (run.status !== 0) throw new Error(`pwsh failed (${run.status}): ${run.stderr}`);
  return run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Comparison);
}

describe.skipIf(!hasPwsh)(`the host's compiled JSON codecs ${PWSH_TEST_TAG}`, () => {
  const results = hasPwsh ? compare() : [];
  const reads = results.filter((r) => r.kind === 'read');
  const writes = new Map(results.filter((r) => r.kind === 'write').map((r) => [r.name!, r]));

  it('read every message to the same types and values as the PowerShell reader', () => {
    expect(reads).toHaveLength(6);
    for (const read of reads) expect(read.actual, read.input).toBe(read.expected);
    // Keys compare as PowerShell's own @{} does, and dates stay strings.
    expect(reads[0]!.actual).toContain('hashtable[OrdinalIgnoreCaseComparer]');
    expect(reads[0]!.actual).toContain('when=System.String:2024-01-01T00:00:00Z');
  });

  it('write plain data itself, to the text of the general writer', () => {
    const plain = [
      'flat hashtable',
      'ordered, every number',
      'strings and escapes',
      'booleans and nulls',
      'nested lists',
      'PSObject-wrapped values',
      'a string',
      'a number',
    ];
    for (const name of plain) {
      const write = writes.get(name)!;
      expect(write.wrote, name).toBe(true);
      expect(write.direct, name).toBe(write.expected);
      expect(write.through, name).toBe(write.expected);
    }
  });

  it('decline what only the general writer handles, which then writes it as before', () => {
    const declined = [
      'PSCustomObject',
      'date',
      'date in a hashtable',
      'enum',
      'non-string key',
      'cycle',
      'deeper than 64',
      'any other object',
    ];
    for (const name of declined) {
      const write = writes.get(name)!;
      expect(write.wrote, name).toBe(false);
      expect(write.through, name).toBe(write.expected);
    }
    expect(writes.get('cycle')!.expected).toContain('[circular reference]');
  });

  it('leave a text longer than the limit to the general writer, which cuts it and says so', () => {
    for (const write of writes.values()) {
      expect(write.short, write.name).toBe(write.shortExpected);
      expect(write.shortTruncated, write.name).toBe(write.shortExpectedTruncated);
    }
    expect(writes.get('flat hashtable')!.shortTruncated).toBe(true);
  });
});
