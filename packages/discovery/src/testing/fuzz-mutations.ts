import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

/** One random edit of a text; see `applyEdits`. */
export interface TextEdit {
  kind: 'insert' | 'delete' | 'replace' | 'duplicate-line' | 'drop-line';
  at: number;
  text: string;
}

/**
 * Random edits made of `alphabet` (the characters a grammar cares about), so mutated
 * fixtures reach the parser's deeper paths instead of failing on the first byte.
 */
export function textEdits(alphabet: readonly string[]): fc.Arbitrary<TextEdit[]> {
  return fc.array(
    fc.record({
      kind: fc.constantFrom<TextEdit['kind']>(
        'insert',
        'delete',
        'replace',
        'duplicate-line',
        'drop-line',
      ),
      at: fc.nat(),
      text: fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 6 }),
    }),
    { maxLength: 8 },
  );
}

/** Inserted, deleted and replaced characters, duplicated and dropped lines. */
export function applyEdits(content: string, edits: readonly TextEdit[]): string {
  let text = content;
  for (const edit of edits) {
    const at = text.length === 0 ? 0 : edit.at % (text.length + 1);
    const lines = text.split('\n');
    const line = lines.length === 0 ? 0 : edit.at % lines.length;
    switch (edit.kind) {
      case 'insert':
        text = text.slice(0, at) + edit.text + text.slice(at);
        break;
      case 'delete':
        text = text.slice(0, at) + text.slice(at + 1 + (edit.text.length % 5));
        break;
      case 'replace':
        text = text.slice(0, at) + edit.text + text.slice(at + edit.text.length);
        break;
      case 'duplicate-line':
        lines.splice(line, 0, lines[line] ?? '');
        text = lines.join('\n');
        break;
      case 'drop-line':
        lines.splice(line, 1);
        text = lines.join('\n');
        break;
    }
  }
  return text;
}

/** Every file of a fixture folder with its content, the seeds of mutation fuzzing. */
export function readFixtureFiles(dir: string): { file: string; content: string }[] {
  return readdirSync(dir).map((file) => ({ file, content: readFileSync(join(dir, file), 'utf8') }));
}
