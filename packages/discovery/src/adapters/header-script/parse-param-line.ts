import { createDiagnostic, findParameterProblems, parseHints } from '@toolpack/core';
import type {
  Diagnostic,
  HintLine,
  ParameterSpec,
  ToolAnnotations,
  ValueSpec,
} from '@toolpack/core';
import { readHintsStatement } from './parse-hints-line.ts';

/**
 * The BASIC-style declaration grammar shared by script header comments and `.bas` files:
 *
 * ```
 * DESCRIPTION "What the tool does"
 * PARAM name [AS type [OF item-type]] [LIKE example] [DEFAULT value] [OPTIONAL] [ENUM [json, ...]] [DESCRIPTION "text"]
 * ```
 *
 * - Keywords are case-insensitive; clauses after the name may come in any order, once each.
 * - `type`: `string` (the default, as in BotServer), `integer`, `number`, `boolean`, `array`,
 *   `object`; `.bas` files also accept `date` and `datetime` (strings in ISO 8601 form).
 *   `AS array OF integer` gives the items' type.
 * - `LIKE`/`DEFAULT` values are read as the declared type: `LIKE 5` and `LIKE "5"` both give
 *   the integer 5 for an integer parameter; arrays and objects are JSON (`LIKE ["a", "b"]`).
 * - `ENUM` takes a JSON array; for an array parameter it lists the allowed items.
 * - A parameter is required unless it says `OPTIONAL` or declares a `DEFAULT`.
 * - Strings are double-quoted; `\"` or `""` is a quote inside one, `\\` a backslash.
 *   A description may also be left unquoted: it then runs to the end of the line.
 * - BotServer's two-line form works too: a `DESCRIPTION` line right after a `PARAM` line
 *   that has none describes that parameter; any other `DESCRIPTION` describes the tool.
 */
export type DeclarationDialect = 'header' | 'basic';

/** One line of declaration text, its comment prefix already removed. */
export interface DeclarationLine {
  text: string;
  /** 1-based line in the file. */
  line: number;
}

export interface DeclaredParameter {
  spec: ParameterSpec;
  line: number;
}

export interface ParsedDeclarations {
  description?: string;
  descriptionLine?: number;
  parameters: DeclaredParameter[];
  diagnostics: Diagnostic[];
  /** From HINTS lines; empty when there are none. */
  annotations: ToolAnnotations;
  /** True when the text declares anything at all (a PARAM, DESCRIPTION or HINTS line). */
  declaresTool: boolean;
  /** Line of the first declaration, for diagnostics about the tool as a whole. */
  firstLine?: number;
}

const HEADER_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'] as const;
const BASIC_TYPES = [...HEADER_TYPES, 'date', 'datetime'] as const;
type DeclaredType = (typeof BASIC_TYPES)[number];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PARAM_FORM =
  'PARAM name AS type [LIKE example] [OPTIONAL] [ENUM ["a","b"]] DESCRIPTION "what it is"';
const INTEGER_TEXT = /^[-+]?\d+$/;
const NUMBER_TEXT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/;

/** A problem with one declaration line. */
export interface DeclarationProblem {
  code: string;
  message: string;
  hint?: string;
  severity?: 'error' | 'warning';
}

type Literal =
  { kind: 'string' | 'bare'; text: string } | { kind: 'json'; text: string; value: unknown };

export interface ParsedParamLine {
  spec: ParameterSpec;
  /** False when the line has no DESCRIPTION clause (the next line may supply it). */
  hasDescription: boolean;
  warnings: DeclarationProblem[];
}

export type ParamLineResult =
  { ok: true; value: ParsedParamLine } | { ok: false; problems: DeclarationProblem[] };

export interface ParseDeclarationsOptions {
  path: string;
  dialect: DeclarationDialect;
}

/** Which statement a line holds, if any. */
export function classifyDeclarationLine(
  text: string,
  dialect: DeclarationDialect,
): 'param' | 'description' | 'hints' | 'other' {
  const match = /^\s*([A-Za-z]+)(?=\s|"|$)(.*)$/s.exec(text);
  if (match === null) return 'other';
  const word = match[1] ?? '';
  const rest = match[2] ?? '';
  const upper = word.toUpperCase();
  if (upper !== 'PARAM' && upper !== 'DESCRIPTION' && upper !== 'HINTS') return 'other';
  // In a header comment an ordinary sentence may start with "Description" or "param": only the
  // upper-case keyword, or a line shaped like a declaration, counts there.
  const strict = dialect === 'header' && word !== upper;
  if (upper === 'HINTS') return strict || /^\s*=/.test(rest) ? 'other' : 'hints';
  if (upper === 'PARAM') {
    if (/^\s*=/.test(rest)) return 'other';
    if (strict && !/^\s+[A-Za-z_][A-Za-z0-9_]*\s+as\s/i.test(`${rest} `)) return 'other';
    return 'param';
  }
  if (/^\s*=/.test(rest)) return 'other';
  if (strict && !/^\s*"/.test(rest)) return 'other';
  return 'description';
}

/** Parses the declarations of one tool: its description and its parameters, with every problem. */
export function parseDeclarations(
  lines: readonly DeclarationLine[],
  options: ParseDeclarationsOptions,
): ParsedDeclarations {
  const { path, dialect } = options;
  const diagnostics: Diagnostic[] = [];
  const parameters: DeclaredParameter[] = [];
  const described = new Set<DeclaredParameter>();
  let description: string | undefined;
  let descriptionLine: number | undefined;
  let firstLine: number | undefined;
  let waiting: DeclaredParameter | undefined;
  let brokenParamLine: number | undefined;
  const hintEntries: HintLine[] = [];

  const report = (line: number, problem: DeclarationProblem): void => {
    diagnostics.push(
      createDiagnostic(
        problem.severity ?? 'error',
        problem.code,
        problem.message,
        { path, line },
        problem.hint,
      ),
    );
  };

  for (const { text, line } of lines) {
    const kind = classifyDeclarationLine(text, dialect);
    if (kind === 'other') {
      waiting = undefined;
      continue;
    }
    firstLine ??= line;
    const body = text.replace(/^\s*[A-Za-z]+/, '');
    if (kind === 'hints') {
      waiting = undefined;
      const statement = readHintsStatement(body, line);
      for (const problem of statement.problems) report(line, problem);
      hintEntries.push(...statement.entries);
      continue;
    }
    if (kind === 'param') {
      waiting = undefined;
      const result = parseParamLine(body, { dialect });
      if (!result.ok) {
        for (const problem of result.problems) report(line, problem);
        // A broken PARAM line with no DESCRIPTION of its own may be followed by its
        // description; that line must not be taken for the tool's.
        brokenParamLine = /(?:^|\s)DESCRIPTION(?:\s|"|$)/i.test(body) ? undefined : line;
        continue;
      }
      for (const warning of result.value.warnings)
        report(line, { ...warning, severity: 'warning' });
      const parameter: DeclaredParameter = { spec: result.value.spec, line };
      parameters.push(parameter);
      if (result.value.hasDescription) described.add(parameter);
      else waiting = parameter;
      continue;
    }
    const parsed = parseDescriptionText(body);
    const target = waiting !== undefined && waiting.line === line - 1 ? waiting : undefined;
    waiting = undefined;
    if (!parsed.ok) {
      if (target !== undefined) {
        const message =
          parsed.problem.message.charAt(0).toLowerCase() + parsed.problem.message.slice(1);
        report(line, { ...parsed.problem, message: `PARAM ${target.spec.name}: ${message}` });
        described.add(target);
        continue;
      }
      report(line, parsed.problem);
      if (brokenParamLine !== line - 1) descriptionLine ??= line;
      continue;
    }
    if (target !== undefined) {
      target.spec.description = parsed.text;
      described.add(target);
    } else if (brokenParamLine === line - 1) {
      // Belongs to a PARAM line that was already reported; do not take it for the tool's.
      continue;
    } else if (description === undefined && descriptionLine === undefined) {
      description = parsed.text;
      descriptionLine = line;
    } else {
      report(line, {
        code: 'W_DUPLICATE_DESCRIPTION',
        severity: 'warning',
        message: `A second DESCRIPTION line is ignored; the tool's description is the one on line ${descriptionLine}.`,
        hint: 'Keep one DESCRIPTION line for the tool, or put this one right after the PARAM line it describes.',
      });
    }
  }

  const seen = new Map<string, DeclaredParameter>();
  for (const parameter of parameters) {
    const { spec, line } = parameter;
    if (!described.has(parameter)) {
      report(line, {
        code: 'E_PARAM_DESCRIPTION',
        message: `PARAM ${spec.name} has no description.`,
        hint: `End the line with DESCRIPTION "what ${spec.name} is", or put a DESCRIPTION "..." line right after it.`,
      });
    }
    const key = spec.name.toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      report(line, {
        code: 'E_DUPLICATE_PARAM',
        message: `PARAM ${spec.name} is declared twice (first on line ${earlier.line}; names are compared ignoring case).`,
        hint: 'Rename or remove one of the two declarations.',
      });
    } else {
      seen.set(key, parameter);
    }
    for (const problem of findParameterProblems([spec])) {
      const detail = problem
        .replace(/^parameter "[^"]*": /, '')
        .replace(/^parameter "[^"]*" items: /, 'its items: ');
      report(line, {
        code: 'E_PARAM_INVALID',
        message: `PARAM ${spec.name}: ${detail}.`,
        hint: 'Make the LIKE, DEFAULT and ENUM values fit the declared type.',
      });
    }
  }

  // One call for every HINTS line, so readOnly on one line and destructive on another conflict.
  const hints = parseHints(hintEntries, { path });
  diagnostics.push(...hints.diagnostics);

  const declaresTool = firstLine !== undefined;
  if (declaresTool && description === undefined && descriptionLine === undefined) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_NO_DESCRIPTION',
        'The tool has PARAM or HINTS lines but no DESCRIPTION line saying what it does.',
        { path, line: firstLine },
        'Add a line DESCRIPTION "what the tool does" (a DESCRIPTION right after a PARAM line describes that parameter).',
      ),
    );
  }

  // Problems found after the first pass (missing descriptions, duplicates) go back in line order.
  diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const result: ParsedDeclarations = {
    parameters,
    diagnostics,
    annotations: hints.annotations,
    declaresTool,
  };
  if (description !== undefined) result.description = description;
  if (descriptionLine !== undefined) result.descriptionLine = descriptionLine;
  if (firstLine !== undefined) result.firstLine = firstLine;
  return result;
}

/** Reads the text after a `DESCRIPTION` keyword: a quoted string, or the rest of the line. */
export function parseDescriptionText(
  body: string,
): { ok: true; text: string } | { ok: false; problem: DeclarationProblem } {
  const scanner = new Scanner(body);
  scanner.skipSpace();
  let text: string;
  if (scanner.peek() === '"') {
    const quoted = scanner.readQuoted();
    if (quoted === undefined) {
      return {
        ok: false,
        problem: {
          code: 'E_DECLARATION_SYNTAX',
          message: 'The DESCRIPTION text has no closing double quote.',
          hint: 'Close the text with " (write \\" or "" for a quote inside it).',
        },
      };
    }
    scanner.skipSpace();
    if (!scanner.done()) {
      return {
        ok: false,
        problem: {
          code: 'E_DECLARATION_SYNTAX',
          message: `Unexpected text after the DESCRIPTION: ${JSON.stringify(scanner.rest().trim())}.`,
          hint: 'Put the whole description inside one pair of double quotes.',
        },
      };
    }
    text = quoted;
  } else {
    text = scanner.rest();
  }
  return checkDescription(text);
}

function checkDescription(
  raw: string,
): { ok: true; text: string } | { ok: false; problem: DeclarationProblem } {
  const text = raw.trim();
  if (text === '') {
    return {
      ok: false,
      problem: {
        code: 'E_EMPTY_DESCRIPTION',
        message: 'The DESCRIPTION is empty.',
        hint: 'Write what it is for: DESCRIPTION "...".',
      },
    };
  }
  return { ok: true, text };
}

/** Parses the text after a `PARAM` keyword. */
export function parseParamLine(
  body: string,
  options: { dialect: DeclarationDialect },
): ParamLineResult {
  const types: readonly string[] = options.dialect === 'basic' ? BASIC_TYPES : HEADER_TYPES;
  const scanner = new Scanner(body);
  const fail = (
    message: string,
    hint = `Write it as ${PARAM_FORM}.`,
    code = 'E_PARAM_SYNTAX',
  ): ParamLineResult => ({
    ok: false,
    problems: [{ code, message, hint }],
  });

  scanner.skipSpace();
  const name = scanner.readWord();
  if (name === '') return fail('PARAM needs a name.');
  if (!IDENTIFIER.test(name)) {
    return fail(
      `PARAM name ${JSON.stringify(name)} is not a valid identifier.`,
      'A name starts with a letter or _ and uses only letters, digits and _, such as file_path.',
      'E_PARAM_NAME',
    );
  }

  let type: DeclaredType | undefined;
  let itemType: DeclaredType | undefined;
  let like: Literal | undefined;
  let defaultValue: Literal | undefined;
  let optional = false;
  let enumValues: unknown[] | undefined;
  let description: string | undefined;
  const seen = new Set<string>();

  for (;;) {
    scanner.skipSpace();
    if (scanner.done()) break;
    const word = scanner.readWord();
    const keyword = word.toUpperCase();
    if (
      word === '' ||
      !['AS', 'LIKE', 'DEFAULT', 'OPTIONAL', 'ENUM', 'DESCRIPTION'].includes(keyword)
    ) {
      const found = word === '' ? scanner.rest().trim().slice(0, 20) : word;
      return fail(
        `Unexpected ${JSON.stringify(found)} in PARAM ${name}: expected AS, LIKE, DEFAULT, OPTIONAL, ENUM or DESCRIPTION.`,
      );
    }
    if (seen.has(keyword))
      return fail(`PARAM ${name} has ${keyword} twice.`, `Keep one ${keyword} clause.`);
    seen.add(keyword);
    switch (keyword) {
      case 'AS': {
        scanner.skipSpace();
        const typeWord = scanner.readWord().toLowerCase();
        if (typeWord === '') return fail(`PARAM ${name}: AS needs a type (${types.join(', ')}).`);
        if (!types.includes(typeWord)) {
          const basicOnly = (BASIC_TYPES as readonly string[]).includes(typeWord);
          return fail(
            `PARAM ${name} has the unknown type ${JSON.stringify(typeWord)}.`,
            basicOnly
              ? `${typeWord} is a .bas type; in a script header write AS string and describe the ISO 8601 form.`
              : `Use one of ${types.join(', ')}.`,
            'E_PARAM_TYPE',
          );
        }
        type = typeWord as DeclaredType;
        const afterType = scanner.position;
        scanner.skipSpace();
        if (scanner.readWord().toUpperCase() === 'OF') {
          if (type !== 'array') {
            return fail(
              `PARAM ${name}: OF only follows AS array (AS array OF string).`,
              undefined,
              'E_PARAM_TYPE',
            );
          }
          scanner.skipSpace();
          const itemWord = scanner.readWord().toLowerCase();
          if (!types.includes(itemWord) || itemWord === 'array') {
            return fail(
              `PARAM ${name} has the unknown item type ${JSON.stringify(itemWord)}.`,
              `Write AS array OF one of ${types.filter((t) => t !== 'array').join(', ')}.`,
              'E_PARAM_TYPE',
            );
          }
          itemType = itemWord as DeclaredType;
        } else {
          scanner.position = afterType;
        }
        break;
      }
      case 'LIKE':
      case 'DEFAULT': {
        scanner.skipSpace();
        const literal = scanner.readLiteral();
        if (!literal.ok) return fail(`PARAM ${name}: ${keyword} ${literal.message}`, literal.hint);
        if (keyword === 'LIKE') like = literal.value;
        else defaultValue = literal.value;
        break;
      }
      case 'OPTIONAL':
        optional = true;
        break;
      case 'ENUM': {
        scanner.skipSpace();
        const literal = scanner.readLiteral();
        const hint =
          'Write the allowed values as a JSON array, such as ENUM ["low", "high"] or ENUM [1, 2, 3].';
        if (!literal.ok)
          return fail(`PARAM ${name}: ENUM ${literal.message}`, hint, 'E_PARAM_ENUM');
        const value = literal.value;
        if (value.kind !== 'json' || !Array.isArray(value.value)) {
          return fail(
            `PARAM ${name}: ENUM needs a JSON array, not ${JSON.stringify(value.text)}.`,
            hint,
            'E_PARAM_ENUM',
          );
        }
        if (value.value.some((item) => item === null || typeof item === 'object')) {
          return fail(
            `PARAM ${name}: ENUM values must be strings, numbers or booleans.`,
            hint,
            'E_PARAM_ENUM',
          );
        }
        enumValues = value.value;
        break;
      }
      case 'DESCRIPTION': {
        scanner.skipSpace();
        // A quoted description may be followed by more clauses; an unquoted one runs to the end.
        const quoted = scanner.peek() === '"' ? scanner.readQuoted() : undefined;
        const parsed =
          quoted === undefined ? parseDescriptionText(scanner.rest()) : checkDescription(quoted);
        if (!parsed.ok) {
          const message =
            parsed.problem.message.charAt(0).toLowerCase() + parsed.problem.message.slice(1);
          return {
            ok: false,
            problems: [{ ...parsed.problem, message: `PARAM ${name}: ${message}` }],
          };
        }
        description = parsed.text;
        if (quoted === undefined) scanner.position = body.length;
        break;
      }
    }
  }

  const warnings: DeclarationProblem[] = [];
  const spec: ParameterSpec = { name, ...toValueSpec(type ?? 'string') };
  if (spec.type === 'array' && itemType !== undefined) spec.items = toValueSpec(itemType);
  if (enumValues !== undefined) {
    if (spec.type === 'array') {
      spec.items ??= { type: inferEnumType(enumValues) };
      spec.items.enum = enumValues as (string | number | boolean)[];
    } else {
      spec.enum = enumValues as (string | number | boolean)[];
    }
  }
  const problems: DeclarationProblem[] = [];
  const convert = (keyword: string, literal: Literal): unknown => {
    const converted = convertLiteral(literal, spec);
    if (!converted.ok) {
      problems.push({
        code: 'E_PARAM_VALUE',
        message: `PARAM ${name}: the ${keyword} value ${JSON.stringify(literal.text)} ${converted.message}.`,
        hint: converted.hint,
      });
      return undefined;
    }
    return converted.value;
  };
  if (like !== undefined) {
    const example = convert('LIKE', like);
    if (example !== undefined) spec.examples = [example];
  }
  if (defaultValue !== undefined) {
    const value = convert('DEFAULT', defaultValue);
    if (value !== undefined) spec.default = value;
  }
  if (problems.length > 0) return { ok: false, problems };

  // A date the author writes as 23/09/2001 must keep working: drop the format rather than
  // have every call in the author's own form rejected.
  if (spec.format === 'date' || spec.format === 'date-time') {
    const pattern = spec.format === 'date' ? ISO_DATE : ISO_DATE_TIME;
    const samples = [
      ...(spec.examples ?? []),
      ...(spec.default === undefined ? [] : [spec.default]),
    ];
    const odd = samples.find((sample) => typeof sample === 'string' && !pattern.test(sample));
    if (odd !== undefined) {
      delete spec.format;
      warnings.push({
        code: 'W_DATE_FORMAT',
        message: `PARAM ${name}: ${JSON.stringify(odd)} is not an ISO 8601 ${type}, so the schema does not require the ${type} format.`,
        hint: `Write the example as ${type === 'date' ? '2001-09-23' : '2001-09-23T14:30:00Z'} to have calls checked.`,
      });
    }
  }

  spec.required = !optional && defaultValue === undefined;
  if (description !== undefined) spec.description = description;
  return { ok: true, value: { spec, hasDescription: description !== undefined, warnings } };
}

function toValueSpec(type: DeclaredType): ValueSpec {
  if (type === 'date') return { type: 'string', format: 'date' };
  if (type === 'datetime') return { type: 'string', format: 'date-time' };
  return { type };
}

function inferEnumType(values: readonly unknown[]): ValueSpec['type'] {
  if (values.length > 0 && values.every((v) => typeof v === 'boolean')) return 'boolean';
  if (values.length > 0 && values.every((v) => typeof v === 'number')) {
    return values.every((v) => Number.isInteger(v)) ? 'integer' : 'number';
  }
  return 'string';
}

type Conversion = { ok: true; value: unknown } | { ok: false; message: string; hint: string };

/** Reads a LIKE/DEFAULT literal as a value of the parameter's type. */
function convertLiteral(literal: Literal, spec: ValueSpec): Conversion {
  const text = literal.text.trim();
  switch (spec.type) {
    case 'string':
      return { ok: true, value: literal.text };
    case 'integer':
      if (INTEGER_TEXT.test(text) && Number.isSafeInteger(Number(text)))
        return { ok: true, value: Number(text) + 0 };
      return {
        ok: false,
        message: 'is not a whole number',
        hint: 'Write a whole number, such as LIKE 5.',
      };
    case 'number':
      if (NUMBER_TEXT.test(text) && Number.isFinite(Number(text)))
        return { ok: true, value: Number(text) + 0 };
      return { ok: false, message: 'is not a number', hint: 'Write a number, such as LIKE 2.5.' };
    case 'boolean':
      if (/^true$/i.test(text)) return { ok: true, value: true };
      if (/^false$/i.test(text)) return { ok: true, value: false };
      return {
        ok: false,
        message: 'is neither true nor false',
        hint: 'Write LIKE true or LIKE false.',
      };
    case 'array':
    case 'object': {
      const value = literal.kind === 'json' ? literal.value : parseJson(text);
      const fits = spec.type === 'array' ? Array.isArray(value) : isPlainObject(value);
      if (fits) return { ok: true, value };
      return spec.type === 'array'
        ? {
            ok: false,
            message: 'is not a JSON array',
            hint: 'Write a JSON array, such as LIKE ["a", "b"].',
          }
        : {
            ok: false,
            message: 'is not a JSON object',
            hint: 'Write a JSON object, such as LIKE {"key": "value"}.',
          };
    }
  }
}

function parseJson(text: string): unknown {
  try {
    // `+ 0` turns -0 into 0: JSON has no -0, so the value would change on its way through the cache.
    return JSON.parse(text, (_key, value: unknown) =>
      typeof value === 'number' ? value + 0 : value,
    ) as unknown;
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type LiteralResult = { ok: true; value: Literal } | { ok: false; message: string; hint?: string };

/** A cursor over one line. Every read is linear: no backtracking regexes on user text. */
class Scanner {
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
