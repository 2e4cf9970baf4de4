/**
 * Characters a pack's file names may not hold, because a reader cannot see them or sees
 * something else: bidirectional controls (`report\u{202E}fdp.sh` displays as
 * `reporths.pdf`), control characters (C0, DEL, C1), format characters (zero-width space and
 * joiners, the byte-order mark, soft hyphen, tag characters and the rest of Unicode's Cf),
 * line and paragraph separators, spaces other than U+0020, variation selectors, the combining
 * grapheme joiner, blank letters (Hangul fillers, the blank Braille pattern), and U+FFFD,
 * which stands for bytes that were not UTF-8. Letters of any script stay allowed, look-alikes
 * included: Toolpack cannot judge which script a name should be in. Emoji joined with
 * U+200D are refused with the joiners.
 */
const BIDI_CONTROLS = new Set([
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);
const BLANK_LETTERS = new Set([0x034f, 0x115f, 0x1160, 0x2800, 0x3164, 0xffa0]);
const CONTROL = /\p{Cc}/u;
const FORMAT = /[\p{Cf}\p{Variation_Selector}]/u;
const SEPARATOR = /[\p{Zs}\p{Zl}\p{Zp}]/u;

const NAMES = new Map<number, string>([
  [0x061c, 'ARABIC LETTER MARK'],
  [0x200b, 'ZERO WIDTH SPACE'],
  [0x200c, 'ZERO WIDTH NON-JOINER'],
  [0x200d, 'ZERO WIDTH JOINER'],
  [0x200e, 'LEFT-TO-RIGHT MARK'],
  [0x200f, 'RIGHT-TO-LEFT MARK'],
  [0x202a, 'LEFT-TO-RIGHT EMBEDDING'],
  [0x202b, 'RIGHT-TO-LEFT EMBEDDING'],
  [0x202c, 'POP DIRECTIONAL FORMATTING'],
  [0x202d, 'LEFT-TO-RIGHT OVERRIDE'],
  [0x202e, 'RIGHT-TO-LEFT OVERRIDE'],
  [0x2060, 'WORD JOINER'],
  [0x2066, 'LEFT-TO-RIGHT ISOLATE'],
  [0x2067, 'RIGHT-TO-LEFT ISOLATE'],
  [0x2068, 'FIRST STRONG ISOLATE'],
  [0x2069, 'POP DIRECTIONAL ISOLATE'],
  [0x00a0, 'NO-BREAK SPACE'],
  [0x00ad, 'SOFT HYPHEN'],
  [0x007f, 'DELETE'],
  [0xfeff, 'ZERO WIDTH NO-BREAK SPACE (byte-order mark)'],
  [0xfffd, 'REPLACEMENT CHARACTER (the name was not valid UTF-8)'],
]);

/** What kind of refused character `char` is, or undefined when a file name may hold it. */
export function classifyNameCharacter(char: string): string | undefined {
  const code = char.codePointAt(0) ?? 0;
  if (BIDI_CONTROLS.has(code)) return 'a bidirectional control';
  if (CONTROL.test(char)) return 'a control character';
  if (code === 0xfffd) return 'a stand-in for bytes that are not UTF-8';
  if (FORMAT.test(char) || BLANK_LETTERS.has(code)) return 'an invisible character';
  if (char !== ' ' && SEPARATOR.test(char)) return 'a space or line break other than U+0020';
  return undefined;
}

/** `name` with every refused character written as `\u{XXXX}`, safe to print anywhere. */
export function escapeFileName(name: string): string {
  let escaped = '';
  for (const char of name) {
    escaped +=
      classifyNameCharacter(char) === undefined ? char : `\\u{${formatCodePoint(char, false)}}`;
  }
  return escaped;
}

function formatCodePoint(char: string, prefixed = true): string {
  const hex = (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return prefixed ? `U+${hex}` : hex;
}

/**
 * What is wrong with the characters of `name` ("has U+202E RIGHT-TO-LEFT OVERRIDE (a
 * bidirectional control), ..."), or undefined when a pack may hold a file of that name.
 */
export function describeNameCharacters(name: string): string | undefined {
  const found = new Map<string, string>();
  for (const char of name) {
    const kind = classifyNameCharacter(char);
    if (kind === undefined) continue;
    const known = NAMES.get(char.codePointAt(0) ?? 0);
    found.set(
      formatCodePoint(char),
      `${formatCodePoint(char)}${known === undefined ? '' : ` ${known}`} (${kind})`,
    );
  }
  return found.size === 0 ? undefined : `has ${[...found.values()].join(', ')} in its name`;
}

/** Says why such names are refused; ends every message about them. */
export const NAME_CHARACTERS_RULE =
  'such characters make a name look like another one. File names in a pack may not hold bidirectional controls, control characters, zero-width or other invisible characters, or spaces other than U+0020.';
