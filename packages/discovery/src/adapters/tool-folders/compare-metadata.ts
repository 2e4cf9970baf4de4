import path from 'node:path';
import { createDiagnostic, isPlainObject } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';
import { parseLocatedDocument } from './yaml-document.ts';

export interface CompareMetadataInput {
  /** The metadata file that is read (metadata.json). */
  read: { path: string; text: string };
  /** The one beside it that is not (metadata.yaml). */
  other: { path: string; text: string };
}

/**
 * A `W_METADATA_DISAGREE` warning at the first place where the unread metadata file says
 * something else than the read one (a key, an item, a value), or undefined when both say the
 * same. The read file's own problems are reported by describeToolFolder, not here.
 */
export function compareMetadata(input: CompareMetadataInput): Diagnostic | undefined {
  const read = parseLocatedDocument(input.read.text, input.read.path);
  if (read.diagnostics.length > 0) return undefined;
  const other = parseLocatedDocument(input.other.text, input.other.path);
  const readName = path.basename(input.read.path);
  const otherName = path.basename(input.other.path);
  if (other.diagnostics.length > 0) {
    return createDiagnostic(
      'warning',
      'W_METADATA_DISAGREE',
      `${otherName} cannot be read (${other.diagnostics[0]?.message ?? 'a syntax error'}); ${readName} is read, as dotbot's server reads it.`,
      { path: input.other.path, line: other.diagnostics[0]?.line ?? 1 },
      `Fix or delete ${otherName}.`,
    );
  }
  const difference = findDifference(read.value, other.value, []);
  if (difference === undefined) return undefined;
  const where = difference.length === 0 ? 'the whole file' : difference.join('.');
  return createDiagnostic(
    'warning',
    'W_METADATA_DISAGREE',
    `${otherName} and ${readName} disagree at ${where}; ${readName} is read, as dotbot's server reads it.`,
    { path: input.other.path, line: lineOf(other, difference) },
    `Make ${otherName} say what ${readName} says, or delete it.`,
  );
}

function lineOf(document: ReturnType<typeof parseLocatedDocument>, at: string[]): number {
  for (let length = at.length; length > 0; length--) {
    const line = document.lineOf(at.slice(0, length).map((s) => (/^\d+$/.test(s) ? Number(s) : s)));
    if (line !== undefined) return line;
  }
  return 1;
}

/** The path of the first difference, or undefined when both values are the same data. */
function findDifference(a: unknown, b: unknown, at: string[]): string[] | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.max(a.length, b.length); index++) {
      if (index >= a.length || index >= b.length) return [...at, String(index)];
      const found = findDifference(a[index], b[index], [...at, String(index)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      if (!(key in a) || !(key in b)) return [...at, key];
      const found = findDifference(a[key], b[key], [...at, key]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return Object.is(a, b) ? undefined : at;
}
