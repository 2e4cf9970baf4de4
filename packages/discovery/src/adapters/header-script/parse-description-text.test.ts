import { describe, expect, it } from 'vitest';
import { parseDescriptionText } from './parse-description-text.ts';

describe('parseDescriptionText', () => {
  it('reads quoted and unquoted text', () => {
    expect(parseDescriptionText(' "a \\"b\\" c"')).toEqual({ ok: true, text: 'a "b" c' });
    expect(parseDescriptionText('   plain words  ')).toEqual({ ok: true, text: 'plain words' });
  });

  it('refuses text after the closing quote', () => {
    expect(parseDescriptionText(' "a" b')).toMatchObject({
      ok: false,
      problem: { code: 'E_DECLARATION_SYNTAX' },
    });
  });
});
