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

  it('warns about unknown *Hint keys and errors on values that are not booleans', () => {
    const result = parseHints(['ReadonlyHnt: true', 'ReadOnlyHint: maybe'], where);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([
      ['warning', 'W_UNKNOWN_HINT', 10],
      ['error', 'E_HINT_VALUE', 11],
    ]);
    expect(result.diagnostics[0]?.hint).toBe('Did you mean ReadOnlyHint?');
    expect(parseHints(['CachingHint: true'], where).diagnostics[0]?.code).toBe('W_UNKNOWN_HINT');
    expect(result.annotations).toEqual({});
  });

  it('omits the line when the location has none', () => {
    const result = parseHints('ReadOnlyHint: maybe', { path: 'metadata.yaml' });
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
