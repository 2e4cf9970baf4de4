import { ToolpackError } from '@toolpack/core';
import { parseReference, type WorkflowReference } from '@toolpack/discovery';

/** What `${input.*}` and `${steps.<id>.result}` read from while a workflow runs. */
export interface ReferenceScope {
  input: Record<string, unknown>;
  steps: Map<string, unknown>;
}

/**
 * Replaces workflow references in a `with` value or the output template. A string that is
 * exactly one reference takes the referenced value as it is (an object stays an object,
 * a missing value stays missing); references inside longer text become text; `$${` is a
 * literal `${`. The grammar is discovery's, so what validated at load resolves the same way.
 */
export function resolveReferences(value: unknown, scope: ReferenceScope): unknown {
  if (typeof value === 'string') return resolveString(value, scope);
  if (Array.isArray(value))
    return value.map((item) => resolveReferences(item, scope)).filter((item) => item !== undefined);
  if (typeof value === 'object' && value !== null) {
    const resolved: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const next = resolveReferences(item, scope);
      if (next !== undefined) resolved[key] = next;
    }
    return resolved;
  }
  return value;
}

function resolveString(text: string, scope: ReferenceScope): unknown {
  const pieces: unknown[] = [];
  let literal = '';
  let position = 0;
  while (position < text.length) {
    const start = text.indexOf('${', position);
    if (start < 0) {
      literal += text.slice(position);
      break;
    }
    if (start > 0 && text.charAt(start - 1) === '$') {
      // `$${` writes a literal `${`: drop the escaping `$`.
      literal += text.slice(position, start - 1) + '${';
      position = start + 2;
      continue;
    }
    const end = text.indexOf('}', start + 2);
    if (end < 0) {
      literal += text.slice(position);
      break;
    }
    literal += text.slice(position, start);
    const reference = parseReference(text.slice(start + 2, end).trim(), text.slice(start, end + 1));
    if (typeof reference === 'string') {
      throw new ToolpackError(
        'E_WORKFLOW_REFERENCE',
        `The reference ${text.slice(start, end + 1)} ${reference}.`,
      );
    }
    if (literal !== '') pieces.push(literal);
    literal = '';
    pieces.push({ reference: readReference(reference, scope) });
    position = end + 1;
  }
  if (literal !== '') pieces.push(literal);

  const only = pieces.length === 1 ? pieces[0] : undefined;
  if (only !== undefined && typeof only === 'object')
    return (only as { reference: unknown }).reference;
  return pieces
    .map((piece) => {
      if (typeof piece === 'string') return piece;
      const value = (piece as { reference: unknown }).reference;
      if (value === undefined || value === null) return '';
      return typeof value === 'string' ? value : JSON.stringify(value);
    })
    .join('');
}

function readReference(reference: WorkflowReference, scope: ReferenceScope): unknown {
  let value: unknown =
    reference.kind === 'input' ? scope.input[reference.name] : scope.steps.get(reference.id);
  for (const segment of reference.path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}
