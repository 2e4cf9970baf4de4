import { createHash } from 'node:crypto';
import { ToolpackError } from './errors.ts';

/** MCP's tool-name rule, the strictest one common clients enforce. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const TOOL_NAME_MAX_LENGTH = 64;

const COMBINING_MARKS = /[\u0300-\u036f]/g;

/**
 * Folds accents away (`é` -> `e`) so names stay readable; everything else outside ASCII is
 * left for the caller to treat as a separator. No locale is consulted anywhere: `I` becomes
 * `i` on a Turkish machine too.
 */
function foldToAscii(input: string): string {
  return input.normalize('NFKD').replace(COMBINING_MARKS, '');
}

/**
 * Splits an identifier into lower-case ASCII words: `Invoke-SendNotification`,
 * `send_notification`, `sendNotification` and `GetHTTPResponse` all split on their word
 * boundaries. Digits stay with the word before them (`get2fa` is one word).
 */
export function splitWords(input: string): string[] {
  const words: string[] = [];
  for (const chunk of foldToAscii(input).split(/[^A-Za-z0-9]+/)) {
    // An acronym with its trailing digits (`HTTP2`), or a word with its digits (`oauth2`, `2fa`).
    for (const part of chunk.match(/[A-Z]+(?![a-z])[0-9]*|[A-Z]?[a-z0-9]+/g) ?? []) {
      words.push(part.toLowerCase());
    }
  }
  return words;
}

/** `Send Notification`, `sendNotification`, `send_notification` -> `send-notification`. */
export function toKebabCase(input: string): string {
  return splitWords(input).join('-');
}

/** `send-notification`, `SendNotification` -> `send_notification`. */
export function toSnakeCase(input: string): string {
  return splitWords(input).join('_');
}

/** `send_notification`, `send-notification` -> `SendNotification`. */
export function toPascalCase(input: string): string {
  return splitWords(input)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** The function a dotbot-style `.ps1` tool folder must define: `send_notification` -> `Invoke-SendNotification`. */
export function toInvokeFunctionName(toolName: string): string {
  return `Invoke-${toPascalCase(toolName)}`;
}

export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** Every reason `name` breaks the MCP name rule, empty when it is valid. */
export function validateToolName(name: string): string[] {
  const problems: string[] = [];
  if (name.length === 0) {
    problems.push('the name is empty');
    return problems;
  }
  const length = [...name].length;
  if (length > TOOL_NAME_MAX_LENGTH) {
    problems.push(
      `the name has ${length} characters, more than the ${TOOL_NAME_MAX_LENGTH} allowed`,
    );
  }
  const invalid = [...new Set([...name].filter((ch) => !/[A-Za-z0-9_-]/.test(ch)))];
  if (invalid.length > 0) {
    problems.push(
      `the name contains ${invalid.map(describeCharacter).join(', ')}; only A-Z, a-z, 0-9, _ and - are allowed`,
    );
  }
  return problems;
}

export interface NormalizeToolNameOptions {
  /**
   * Keep `-` (MCP allows it). Off by default: discovery maps the `-` of PowerShell's
   * `Verb-Noun` to `_` so every tool name is a snake-case identifier.
   */
  allowHyphen?: boolean;
}

export interface NormalizedToolName {
  name: string;
  /** True when `name` differs from the input. */
  changed: boolean;
  /** What was changed, in words, for a diagnostic. */
  changes: string[];
}

/**
 * Turns any candidate into a valid MCP tool name and says what it had to change:
 * accents folded, other characters mapped to `_`, names over 64 characters shortened
 * with a hash suffix so two long names that share a prefix stay distinct.
 */
export function normalizeToolName(
  raw: string,
  options: NormalizeToolNameOptions = {},
): NormalizedToolName {
  const allowed = options.allowHyphen ? /[A-Za-z0-9_-]/ : /[A-Za-z0-9_]/;
  const changes: string[] = [];

  const folded = foldToAscii(raw);
  if (folded !== raw && [...folded].length === [...raw].length) {
    changes.push('folded accented letters to ASCII');
  } else if (folded !== raw) {
    changes.push('folded compatibility characters to ASCII');
  }

  const replaced = new Set<string>();
  let name = '';
  for (const ch of folded) {
    if (allowed.test(ch)) {
      name += ch;
    } else {
      replaced.add(ch);
      name += '_';
    }
  }
  if (replaced.size > 0) {
    changes.push(`replaced ${[...replaced].map(describeCharacter).join(', ')} with '_'`);
  }

  if (!/[A-Za-z0-9]/.test(name)) {
    throw new ToolpackError(
      'E_TOOL_NAME',
      raw === ''
        ? 'A tool name is empty.'
        : `The tool name ${JSON.stringify(raw)} has no letters or digits.`,
      {
        hint: 'Give the tool a name made of letters, digits and underscores, such as send_notification.',
      },
    );
  }

  if (name.length > TOOL_NAME_MAX_LENGTH) {
    const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
    const shortened = `${name.slice(0, TOOL_NAME_MAX_LENGTH - hash.length - 1)}_${hash}`;
    changes.push(`shortened from ${name.length} to ${TOOL_NAME_MAX_LENGTH} characters`);
    name = shortened;
  }

  return { name, changed: name !== raw, changes };
}

function describeCharacter(ch: string): string {
  if (ch === ' ') return 'space';
  if (/\s/.test(ch) || /\p{C}/u.test(ch)) {
    return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${ch}'`;
}
