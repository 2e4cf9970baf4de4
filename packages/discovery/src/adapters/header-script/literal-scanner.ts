/** A LIKE/DEFAULT/ENUM value as written: quoted, bare, or JSON (already parsed). */
export type Literal =
  { kind: 'string' | 'bare'; text: string } | { kind: 'json'; text: string; value: unknown };

export type LiteralResult =
  { ok: true; value: Literal } | { ok: false; message: string; hint?: string };

/** A cursor over one line. Every read is linear: no backtracking regexes on user text. */
export class Scanner {
  readonly text: string;
  position = 0;

  constructor(text: string) {
    this.text = text;
  }

  done(): boolean {
    return this.position >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text.charAt(this.position + offset);
  }

  rest(): string {
    return this.text.slice(this.position);
  }

  skipSpace(): void {
    while (!this.done() && /\s/.test(this.peek())) this.position += 1;
  }

  /** A run of characters up to whitespace or a quote. */
  readWord(): string {
    const start = this.position;
    while (!this.done() && !/[\s"]/.test(this.peek())) this.position += 1;
    return this.text.slice(start, this.position);
  }

  /** A double-quoted string; `undefined` (position unchanged) when it is not closed. */
  readQuoted(): string | undefined {
    const start = this.position;
    this.position += 1;
    let value = '';
    while (!this.done()) {
      const ch = this.peek();
      if (ch === '\\' && (this.peek(1) === '"' || this.peek(1) === '\\')) {
        value += this.peek(1);
        this.position += 2;
      } else if (ch === '"' && this.peek(1) === '"') {
        value += '"';
        this.position += 2;
      } else if (ch === '"') {
        this.position += 1;
        return value;
      } else {
        value += ch;
        this.position += 1;
      }
    }
    this.position = start;
    return undefined;
  }

  /** Index just past the JSON array/object starting at `from`, or -1 when it is not closed. */
  private findJsonEnd(from: number): number {
    let depth = 0;
    let inString = false;
    for (let i = from; i < this.text.length; i += 1) {
      const ch = this.text.charAt(i);
      if (inString) {
        if (ch === '\\') i += 1;
        else if (ch === '"') inString = false;
      } else if (ch === '"') {
        inString = true;
      } else if (ch === '[' || ch === '{') {
        depth += 1;
      } else if (ch === ']' || ch === '}') {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }

  readLiteral(): LiteralResult {
    if (this.done()) return { ok: false, message: 'needs a value.' };
    const first = this.peek();
    if (first === '[' || first === '{') {
      const end = this.findJsonEnd(this.position);
      if (end < 0)
        return {
          ok: false,
          message: 'has a JSON value that is not closed.',
          hint: `Close it with ${first === '[' ? ']' : '}'}.`,
        };
      const text = this.text.slice(this.position, end);
      const value = parseJson(text);
      if (value === undefined) {
        return {
          ok: false,
          message: `has a value that is not valid JSON: ${text}.`,
          hint: 'Quote strings with " and separate items with commas.',
        };
      }
      this.position = end;
      return { ok: true, value: { kind: 'json', text, value } };
    }
    if (first === '"') {
      // BotServer's documents write JSON examples inside quotes without escaping them:
      // LIKE "["urgent", "follow-up"]". Read those as the JSON they obviously are.
      const inner = this.peek(1);
      if (inner === '[' || inner === '{') {
        const end = this.findJsonEnd(this.position + 1);
        if (end > 0 && this.text.charAt(end) === '"') {
          const text = this.text.slice(this.position + 1, end);
          const value = parseJson(text);
          if (value !== undefined) {
            this.position = end + 1;
            return { ok: true, value: { kind: 'json', text, value } };
          }
        }
      }
      const quoted = this.readQuoted();
      if (quoted === undefined) {
        return {
          ok: false,
          message: 'has a value with no closing double quote.',
          hint: 'Close the value with ".',
        };
      }
      return { ok: true, value: { kind: 'string', text: quoted } };
    }
    const word = this.readWord();
    return { ok: true, value: { kind: 'bare', text: word } };
  }
}

/** JSON text as a value, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    // `+ 0` turns -0 into 0: JSON has no -0, so the value would change on its way through the cache.
    return JSON.parse(text, (_key, value: unknown) =>
      typeof value === 'number' ? value + 0 : value,
    ) as unknown;
  } catch {
    return undefined;
  }
}
