import { describe, expect, it } from 'vitest';
import { matchesAnyWildcard } from './wildcard.ts';

describe('matchesAnyWildcard', () => {
  it('matches plain names and patterns of one list, in any case, however often the list is asked', () => {
    const exported = ['Get-Widget', 'Set-*', 'Remove-Widget`[1`]', 'Test-?'];
    for (let round = 0; round < 2; round++) {
      expect(matchesAnyWildcard('get-WIDGET', exported)).toBe(true);
      expect(matchesAnyWildcard('Set-Anything', exported)).toBe(true);
      expect(matchesAnyWildcard('Remove-Widget[1]', exported)).toBe(true);
      expect(matchesAnyWildcard('Test-A', exported)).toBe(true);
      expect(matchesAnyWildcard('Test-AB', exported)).toBe(false);
      expect(matchesAnyWildcard('Get-Widgets', exported)).toBe(false);
    }
    // Another list, even with the same names, is its own.
    expect(matchesAnyWildcard('Get-Widget', ['Get-Other'])).toBe(false);
  });
});
