import { describe, expect, it } from 'vitest';
import {
  assertIntegrity,
  checkIntegrity,
  computeIntegrity,
  integrityToFileName,
  isValidIntegrity,
} from './integrity.ts';

describe('integrity', () => {
  const bytes = Buffer.from('hello');
  const sri = computeIntegrity(bytes);

  it('is the SRI sha512 of the bytes', () => {
    expect(sri).toBe(
      'sha512-m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw==',
    );
    expect(isValidIntegrity(sri)).toBe(true);
  });

  it('matches only the same bytes, and only sha512', () => {
    expect(checkIntegrity(bytes, sri)).toBe(true);
    expect(checkIntegrity(Buffer.from('hellO'), sri)).toBe(false);
    expect(checkIntegrity(bytes, `sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00= ${sri}`)).toBe(true);
    expect(checkIntegrity(bytes, 'sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00=')).toBe(false);
    expect(checkIntegrity(bytes, 'nonsense')).toBe(false);
  });

  it('says what was expected and what arrived', () => {
    expect(() => assertIntegrity(Buffer.from('x'), sri, 'The tarball of a@1.0.0')).toThrow(
      /The tarball of a@1\.0\.0 does not match its integrity: expected sha512-m3HS.*, got sha512-/,
    );
    expect(() => assertIntegrity(bytes, 'md5-abc', 'It')).toThrow(/has no sha512 integrity/);
  });

  it('names cache files without characters a file system dislikes', () => {
    expect(integrityToFileName(sri)).toMatch(/^sha512-[0-9a-f]{128}\.tgz$/);
    expect(integrityToFileName('bad')).toBeUndefined();
  });
});
