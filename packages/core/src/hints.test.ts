import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHints } from './hints.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

const where = { path: 'Get-Widget.ps1', line: 10 };

describe('parseHints', { timeout: fuzzTimeout() }, () => {
  it('reads every MCP hint, any casing, any boolean spelling', () => {
    const result = parseHints(
      ['ReadOnlyHint: true', 'idempotenthint: $true', 'OPENWORLDHINT = no', 'DestructiveHint: 0'],
      where,
    );
    expect(result.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
      destructiveHint: false,
    });
    expect(result.diagnostics).toEqual([]);
  });

  it('keeps other notes lines for the caller', () => {
    const result = parseHints('Author: Ada\nReadOnlyHint: yes\nFree text line', where);
    expect(result.annotations).toEqual({ readOnlyHint: true });
    expect(result.otherLines).toEqual(['Author: Ada', 'Free text line']);
  });

  it('refuses ReadOnlyHint and DestructiveHint both true, pointing at the line', () => {
    const result = parseHints(['ReadOnlyHint: true', 'DestructiveHint: true'], where);
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'E_CONFLICTING_HINTS',
        message:
          'ReadOnlyHint and DestructiveHint are both true: a read-only tool cannot destroy anything.',
        path: 'Get-Widget.ps1',
        line: 11,
        hint: 'Keep ReadOnlyHint for a tool that changes nothing, DestructiveHint for one that deletes or overwrites.',
      },
    ]);
  });

  it('reads MCPServerPS hint lines: the key followed by a description declares the hint', () => {
    const result = parseHints(
      [
        'ReadOnlyHint: This tool does not modify its environment or have side effects.',
        'IdempotentHint: Calling it twice gives the same answer.',
        'OpenWorldHint:',
      ],
      where,
    );
    expect(result.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(result.diagnostics).toEqual([]);
  });

  it('reads only false, $false, no, 0 and off (alone, any case) as false', () => {
    for (const word of ['false', '$false', 'no', '0', 'off', 'FALSE', '$False', 'No', 'OFF']) {
      expect(parseHints([`ReadOnlyHint: ${word}`], where).annotations).toEqual({
        readOnlyHint: false,
      });
    }
    for (const word of ['true', '$true', 'yes', '1', 'on', 'n', 'maybe', 'Nothing changes.']) {
      expect(parseHints([`ReadOnlyHint: ${word}`], where).annotations).toEqual({
        readOnlyHint: true,
      });
    }
  });

  it('refuses ReadOnlyHint and DestructiveHint both declared with descriptions', () => {
    const result = parseHints(
      ['ReadOnlyHint: Reads the disk only.', 'DestructiveHint: Deletes the temp folder.'],
      where,
    );
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([
      ['error', 'E_CONFLICTING_HINTS', 11],
    ]);
    // Declared but false is no conflict.
    expect(
      parseHints(['ReadOnlyHint: Reads the disk only.', 'DestructiveHint: false'], where)
        .diagnostics,
    ).toEqual([]);
  });

  it('warns when a description opens with a denial of the hint it declares', () => {
    const result = parseHints(
      ['IdempotentHint: Not idempotent: every call adds a row.', 'DestructiveHint: No, it reads.'],
      where,
    );
    expect(result.annotations).toEqual({ idempotentHint: true, destructiveHint: true });
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([
      ['warning', 'W_HINT_READS_AS_DENIAL', 10],
      ['warning', 'W_HINT_READS_AS_DENIAL', 11],
    ]);
    expect(result.diagnostics[0]?.hint).toBe(
      'Keep the line if the hint holds; otherwise write "IdempotentHint: false" or remove the line.',
    );
    // Descriptions that affirm the hint are not denials.
    expect(
      parseHints(
        ['ReadOnlyHint: No side effects.', 'IdempotentHint: Nothing changes between calls.'],
        where,
      ).diagnostics,
    ).toEqual([]);
  });

  it('warns about unknown *Hint keys with a suggestion, and ignores them', () => {
    const result = parseHints(['ReadonlyHnt: true', 'ReadOnlyHint: maybe'], where);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([
      ['warning', 'W_UNKNOWN_HINT', 10],
    ]);
    expect(result.diagnostics[0]?.hint).toBe('Did you mean ReadOnlyHint?');
    expect(parseHints(['CachingHint: true'], where).diagnostics[0]?.code).toBe('W_UNKNOWN_HINT');
    expect(result.annotations).toEqual({ readOnlyHint: true });
  });

  it('omits the line when the location has none', () => {
    const result = parseHints('ReadonlyHnt: true', { path: 'metadata.yaml' });
    expect(result.diagnostics[0]).not.toHaveProperty('line');
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const result = parseHints(text, where);
        expect(Array.isArray(result.diagnostics)).toBe(true);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });
});
