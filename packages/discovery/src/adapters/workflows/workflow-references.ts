/**
 * `${...}` references inside workflow values:
 *
 * - `${input.<name>}` with an optional path (`${input.user.email}`, `${input.tags[0]}`),
 * - `${steps.<id>.result}` with an optional path (`${steps.fetch.result.body.items[2]}`),
 * - `$${` is a literal `${`.
 *
 * A string that is exactly one reference takes the referenced value as it is (an object
 * stays an object); references inside longer text are replaced by their text form.
 */
export type WorkflowReference =
  | { kind: 'input'; name: string; path: (string | number)[]; text: string }
  | { kind: 'step'; id: string; path: (string | number)[]; text: string };

export type ReferenceScan =
  { ok: true; references: WorkflowReference[] } | { ok: false; problem: string; text: string };

const SEGMENT = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\])/;

/** Every reference in `value`, or the first one that cannot be read. */
export function scanReferences(value: string): ReferenceScan {
  const references: WorkflowReference[] = [];
  let position = 0;
  for (;;) {
    const start = value.indexOf('${', position);
    if (start < 0) return { ok: true, references };
    if (start > 0 && value.charAt(start - 1) === '$') {
      position = start + 2;
      continue;
    }
    const end = value.indexOf('}', start + 2);
    if (end < 0) {
      return { ok: false, problem: 'is not closed: add }', text: value.slice(start, start + 40) };
    }
    const text = value.slice(start, end + 1);
    const parsed = parseReference(value.slice(start + 2, end).trim(), text);
    if (typeof parsed === 'string') return { ok: false, problem: parsed, text };
    references.push(parsed);
    position = end + 1;
  }
}

/** Reads `input.x.y` / `steps.id.result.z`; a string says what is wrong with it. */
export function parseReference(
  expression: string,
  text = `\${${expression}}`,
): WorkflowReference | string {
  const root = /^(input|steps)\b/.exec(expression);
  if (root === null) {
    return 'is not a reference this workflow can read: use ${input.<name>} or ${steps.<id>.result}';
  }
  const segments = readPath(expression.slice(root[0].length));
  if (segments === undefined)
    return 'has a path that cannot be read: write names with dots and indexes as [0]';
  if (root[1] === 'input') {
    const [name, ...path] = segments;
    if (typeof name !== 'string') return 'names no input: write ${input.<name>}';
    return { kind: 'input', name, path, text };
  }
  const [id, result, ...path] = segments;
  if (typeof id !== 'string') return 'names no step: write ${steps.<id>.result}';
  if (result !== 'result') return `reads step ${id} without .result: write \${steps.${id}.result}`;
  return { kind: 'step', id, path, text };
}

function readPath(rest: string): (string | number)[] | undefined {
  const segments: (string | number)[] = [];
  let remaining = rest;
  while (remaining !== '') {
    const match = SEGMENT.exec(remaining);
    if (match === null) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push((match[3] ?? '').replace(/\\(.)/g, '$1'));
    remaining = remaining.slice(match[0].length);
  }
  return segments;
}
