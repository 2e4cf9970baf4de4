import { isPlainObject } from '@toolpack/core';
import type { ParameterSpec, ValueSpec } from '@toolpack/core';
import type {
  DeclarationDialect,
  DeclarationProblem,
  ParamLineResult,
} from './declaration-types.ts';
import { type Literal, Scanner, parseJson } from './literal-scanner.ts';
import { checkDescription, parseDescriptionText } from './parse-description-text.ts';

const HEADER_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'] as const;
const BASIC_TYPES = [...HEADER_TYPES, 'date', 'datetime'] as const;
type DeclaredType = (typeof BASIC_TYPES)[number];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PARAM_FORM =
  'PARAM name AS type [LIKE example] [OPTIONAL] [ENUM ["a","b"]] DESCRIPTION "what it is"';
const OUTPUT_FORM = 'OUTPUT name AS type [OF item-type] [OPTIONAL] DESCRIPTION "what it is"';
const INTEGER_TEXT = /^[-+]?\d+$/;
const NUMBER_TEXT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/;

/**
 * Parses the text after a `PARAM` keyword, or after `OUTPUT`: an output property is declared
 * the same way, without DEFAULT (a default is what a caller may leave out; an output has none).
 */
export function parseParamLine(
  body: string,
  options: { dialect: DeclarationDialect; statement?: 'PARAM' | 'OUTPUT' },
): ParamLineResult {
  const label = options.statement ?? 'PARAM';
  const types: readonly string[] = options.dialect === 'basic' ? BASIC_TYPES : HEADER_TYPES;
  const scanner = new Scanner(body);
  const fail = (
    message: string,
    hint = `Write it as ${label === 'PARAM' ? PARAM_FORM : OUTPUT_FORM}.`,
    code: DeclarationProblem['code'] = 'E_PARAM_SYNTAX',
  ): ParamLineResult => ({
    ok: false,
    problems: [{ code, message, hint }],
  });

  scanner.skipSpace();
  const name = scanner.readWord();
  if (name === '') return fail(`${label} needs a name.`);
  if (!IDENTIFIER.test(name)) {
    return fail(
      `${label} name ${JSON.stringify(name)} is not a valid identifier.`,
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
    if (keyword === 'DEFAULT' && label === 'OUTPUT') {
      return fail(
        `OUTPUT ${name} cannot have a DEFAULT: the tool always produces it or marks it OPTIONAL.`,
      );
    }
    if (seen.has(keyword))
      return fail(`${label} ${name} has ${keyword} twice.`, `Keep one ${keyword} clause.`);
    seen.add(keyword);
    switch (keyword) {
      case 'AS': {
        scanner.skipSpace();
        const typeWord = scanner.readWord().toLowerCase();
        if (typeWord === '')
          return fail(`${label} ${name}: AS needs a type (${types.join(', ')}).`);
        if (!types.includes(typeWord)) {
          const basicOnly = (BASIC_TYPES as readonly string[]).includes(typeWord);
          return fail(
            `${label} ${name} has the unknown type ${JSON.stringify(typeWord)}.`,
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
              `${label} ${name}: OF only follows AS array (AS array OF string).`,
              undefined,
              'E_PARAM_TYPE',
            );
          }
          scanner.skipSpace();
          const itemWord = scanner.readWord().toLowerCase();
          if (!types.includes(itemWord) || itemWord === 'array') {
            return fail(
              `${label} ${name} has the unknown item type ${JSON.stringify(itemWord)}.`,
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
        if (!literal.ok)
          return fail(`${label} ${name}: ${keyword} ${literal.message}`, literal.hint);
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
          return fail(`${label} ${name}: ENUM ${literal.message}`, hint, 'E_PARAM_ENUM');
        const value = literal.value;
        if (value.kind !== 'json' || !Array.isArray(value.value)) {
          return fail(
            `${label} ${name}: ENUM needs a JSON array, not ${JSON.stringify(value.text)}.`,
            hint,
            'E_PARAM_ENUM',
          );
        }
        if (value.value.some((item) => item === null || typeof item === 'object')) {
          return fail(
            `${label} ${name}: ENUM values must be strings, numbers or booleans.`,
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
            problems: [{ ...parsed.problem, message: `${label} ${name}: ${message}` }],
          };
        }
        description = parsed.text;
        if (quoted === undefined) scanner.position = body.length;
        break;
      }
    }
  }

  return buildParamSpec({
    label,
    name,
    type,
    itemType,
    like,
    defaultValue,
    optional,
    enumValues,
    description,
  });
}

/** The clauses of one PARAM line as written, before they are read as a parameter. */
interface ParamClauses {
  label: 'PARAM' | 'OUTPUT';
  name: string;
  type: DeclaredType | undefined;
  itemType: DeclaredType | undefined;
  like: Literal | undefined;
  defaultValue: Literal | undefined;
  optional: boolean;
  enumValues: unknown[] | undefined;
  description: string | undefined;
}

/**
 * Turns a PARAM line's clauses into a parameter: ENUM on it (or on its items), LIKE and DEFAULT
 * read as its type, and a date format dropped when the author's own examples do not use it.
 */
function buildParamSpec(clauses: ParamClauses): ParamLineResult {
  const { label, name, type, itemType, like, defaultValue, optional, enumValues, description } =
    clauses;
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
        message: `${label} ${name}: the ${keyword} value ${JSON.stringify(literal.text)} ${converted.message}.`,
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
        message: `${label} ${name}: ${JSON.stringify(odd)} is not an ISO 8601 ${type}, so the schema does not require the ${type} format.`,
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
    // A header PARAM always names its type; a spec without one takes the text as written.
    case undefined:
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
