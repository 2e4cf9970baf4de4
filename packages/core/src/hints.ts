import { createDiagnostic, type Diagnostic, type DiagnosticLocation } from './diagnostics.ts';
import { findClosestName } from './closest-name.ts';
import type { ToolAnnotations } from './tool-model.ts';

const KNOWN_HINTS = {
  readonlyhint: 'readOnlyHint',
  destructivehint: 'destructiveHint',
  idempotenthint: 'idempotentHint',
  openworldhint: 'openWorldHint',
} as const;

// MCPServerPS writes `<HintKey>: <description>`: the key's presence declares the hint, so any
// text after it means true. Only these words, alone, say false.
const FALSE_WORDS = new Set(['false', '$false', 'no', '0', 'off']);

// A description that opens with a denial ("IdempotentHint: Not idempotent", "DestructiveHint:
// No, it only reads") still declares the hint; its author probably meant false, so it is worth
// a warning. Kept narrow on purpose: "ReadOnlyHint: No side effects." and "Does not modify
// anything." affirm the hint they declare.
const DENIAL = /^(?:not\b|(?:no|false|\$false|off)\s*[,.;:!\u2013\u2014-])/i;

/** A hint line that knows its own line in the file (hints gathered from several places). */
export interface HintLine {
  text: string;
  line: number;
}

export interface ParsedHints {
  annotations: ToolAnnotations;
  diagnostics: Diagnostic[];
  /** Lines that were not `Key: value` hints, kept for the tool's notes. */
  otherLines: string[];
}

/**
 * Reads `Key: text` hint lines (PowerShell `.NOTES`, `HINTS` headers, metadata files) into MCP
 * annotations, as MCPServerPS reads them: a known key declares its hint true whatever text
 * follows (`ReadOnlyHint: This tool changes nothing.`, or nothing at all); the text alone being
 * `false`, `$false`, `no`, `0` or `off` declares it false. Keys are case-insensitive.
 * `ReadOnlyHint` and `DestructiveHint` both true is an error (a read-only tool destroys
 * nothing); an unknown `*Hint` key is a warning because it is probably a typo, and so is a
 * description that reads as a denial of the hint it declares.
 * `location.line` is the line of the first text line, so each diagnostic points at its own
 * line; a `HintLine` carries its own line instead.
 */
export function parseHints(
  text: string | readonly (string | HintLine)[],
  location: DiagnosticLocation,
): ParsedHints {
  const lines = typeof text === 'string' ? text.split(/\r?\n/) : text;
  const annotations: ToolAnnotations = {};
  const diagnostics: Diagnostic[] = [];
  const otherLines: string[] = [];
  const hintLines = new Map<keyof typeof annotations, number | undefined>();

  lines.forEach((entry, index) => {
    const rawLine = typeof entry === 'string' ? entry : entry.text;
    const line =
      typeof entry === 'object'
        ? entry.line
        : location.line === undefined
          ? undefined
          : location.line + index;
    const where = { path: location.path, ...(line === undefined ? {} : { line }) };
    const match = /^\s*([A-Za-z][A-Za-z0-9]*)\s*[:=]\s*(.*?)\s*$/.exec(rawLine);
    if (match === null) {
      otherLines.push(rawLine);
      return;
    }
    const [, key = '', value = ''] = match;
    const known = KNOWN_HINTS[key.toLowerCase() as keyof typeof KNOWN_HINTS];
    if (known === undefined) {
      const suggestion = suggestHint(key);
      if (/hint$/i.test(key) || suggestion !== undefined) {
        diagnostics.push(
          createDiagnostic(
            'warning',
            'W_UNKNOWN_HINT',
            `Unknown hint ${JSON.stringify(key)} is ignored.`,
            where,
            suggestion === undefined
              ? 'Use ReadOnlyHint, DestructiveHint, IdempotentHint or OpenWorldHint.'
              : `Did you mean ${suggestion}?`,
          ),
        );
      } else {
        otherLines.push(rawLine);
      }
      return;
    }
    const declared = !FALSE_WORDS.has(value.toLowerCase());
    if (declared && DENIAL.test(value)) {
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_HINT_READS_AS_DENIAL',
          `${key} is declared true: a hint key declares its hint whatever text follows, and ${JSON.stringify(value)} reads as if it were not meant to hold.`,
          where,
          `Keep the line if the hint holds; otherwise write "${key}: false" or remove the line.`,
        ),
      );
    }
    annotations[known] = declared;
    hintLines.set(known, line);
  });

  if (annotations.readOnlyHint === true && annotations.destructiveHint === true) {
    const line = hintLines.get('destructiveHint');
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_CONFLICTING_HINTS',
        'ReadOnlyHint and DestructiveHint are both true: a read-only tool cannot destroy anything.',
        { path: location.path, ...(line === undefined ? {} : { line }) },
        'Keep ReadOnlyHint for a tool that changes nothing, DestructiveHint for one that deletes or overwrites.',
      ),
    );
  }
  return { annotations, diagnostics, otherLines };
}

const HINT_SPELLINGS = ['ReadOnlyHint', 'DestructiveHint', 'IdempotentHint', 'OpenWorldHint'];

/** The hint a misspelt key was probably meant to be (at most two edits away). */
function suggestHint(key: string): string | undefined {
  return findClosestName(key, HINT_SPELLINGS, 2);
}
