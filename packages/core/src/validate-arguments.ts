import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv/dist/2020.js';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type * as AjvCodeModule from 'ajv/dist/vocabularies/code.js';
import type addFormatsModule from 'ajv-formats';
import { canonicalizeArguments } from './canonicalize-arguments.ts';
import { findClosestName } from './closest-name.ts';
import { ToolpackError } from './errors.ts';
import { compileLinearPattern, findPatternProblem } from './linear-pattern.ts';
import type { JsonSchema } from './tool-model.ts';

export interface ArgumentError {
  /** JSON Pointer of the offending value, `/` for the arguments object itself. */
  path: string;
  /** The JSON Schema keyword that failed (`maximum`, `required`, `type`, ...). */
  rule: string;
  /** `/count must be <= 100` */
  message: string;
}

export type ArgumentValidation =
  | { valid: true }
  | {
      valid: false;
      /** The first `MAX_REPORTED_ARGUMENT_ERRORS` problems. */
      errors: ArgumentError[];
      /** How many more problems there were beyond `errors`. */
      moreErrors: number;
      message: string;
    };

/**
 * Problems reported per call at most. A client sending a million unknown keys must not get
 * a million-line answer back (or make the server build one): the first few say what to fix.
 */
export const MAX_REPORTED_ARGUMENT_ERRORS = 20;
/** Longest path or name echoed back in one problem; keys are client-chosen and unbounded. */
const MAX_ECHOED_CHARS = 120;

/**
 * Most text (UTF-16 units, all strings together) one check reads against patterns that have
 * no `maxLength` beside them: a call's arguments, or a result. The linear-time engine reads
 * 30-50 MB a second on the server's one thread, so a 16 MiB value held every client for
 * 0.3-0.5 s (1.2 s on a loaded machine); this much costs a few ms. A string past what is left
 * is refused as too long to check, unread; a `maxLength` in the schema is the author's own
 * bound and lifts this one for that value.
 */
export const MAX_UNBOUNDED_PATTERN_TEXT = 256 * 1024;

/** What the check running now may still read against patterns without a maxLength. */
let patternTextLeft = MAX_UNBOUNDED_PATTERN_TEXT;
/** Whether the last string offered was refused for that budget (for its error's message). */
let refusedForBudget = false;

/** Takes `text`'s length from the check's budget; true when it does not fit (left unread). */
function exceedsPatternBudget(text: string): boolean {
  refusedForBudget = text.length > patternTextLeft;
  if (!refusedForBudget) patternTextLeft -= text.length;
  return refusedForBudget;
}

function wasRefusedForBudget(): boolean {
  return refusedForBudget;
}

export type ArgumentValidator = (args: unknown) => ArgumentValidation;

function createAjv(): Ajv2020 {
  // Loaded on first use, not at import: Ajv costs ~50 ms of start-up that `mcp list` over
  // scripts never needs. Both packages are CommonJS, so a synchronous require works.
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  const addFormats = require('ajv-formats') as typeof addFormatsModule;
  // strict off: tool authors' schemas may carry annotations (`x-*`, `examples`) Ajv does not know.
  // logger off: a library never prints; unknown formats are the schema author's business.
  // code.regExp: every `pattern` and `patternProperties` key runs in linear time (RE2), never
  // in V8's backtracking engine on the server's thread (linear-pattern.ts says why).
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    validateFormats: true,
    logger: false,
    code: { regExp: linearRegExpEngine },
  });
  addFormats.default(ajv);
  guardPatternByLength(ajv, require);
  return ajv;
}

/**
 * Replaces Ajv's `pattern` with one that skips a string already too long for its `maxLength`:
 * with allErrors every keyword runs, and even in linear time a 16 MiB string costs the thread
 * a third of a second that maxLength has made pointless. Without a maxLength, strings are read
 * only within `MAX_UNBOUNDED_PATTERN_TEXT` per check. The params are Ajv's own, and so is the
 * message of a string that does not match.
 */
function guardPatternByLength(ajv: Ajv2020, require: NodeJS.Require): void {
  const { _, str } = require('ajv/dist/2020.js') as typeof AjvModule;
  const { usePattern } = require('ajv/dist/vocabularies/code.js') as typeof AjvCodeModule;
  ajv.removeKeyword('pattern');
  ajv.addKeyword({
    keyword: 'pattern',
    type: 'string',
    schemaType: 'string',
    error: {
      message: ({ gen, parentSchema, schemaCode }) => {
        const mismatch = str`must match pattern "${schemaCode}"`;
        if (hasMaxLength(parentSchema)) return mismatch;
        const wasRefused = gen.scopeValue('func', { ref: wasRefusedForBudget });
        const tooLong = str`is too long to check against pattern "${schemaCode}" (${MAX_UNBOUNDED_PATTERN_TEXT} characters at most in one call where the schema sets no maxLength; send shorter text, or give the parameter a maxLength)`;
        return _`${wasRefused}() ? ${tooLong} : ${mismatch}`;
      },
      params: ({ schemaCode }) => _`{pattern: ${schemaCode}}`,
    },
    code(cxt) {
      const regExp = usePattern(cxt, cxt.schema as string);
      const max = (cxt.parentSchema as { maxLength?: unknown }).maxLength;
      // maxLength counts code points, `length` UTF-16 units: more than twice as many units
      // is surely too long.
      if (hasMaxLength(cxt.parentSchema))
        cxt.fail(_`${cxt.data}.length <= ${2 * (max as number)} && !${regExp}.test(${cxt.data})`);
      else {
        const exceeds = cxt.gen.scopeValue('func', { ref: exceedsPatternBudget });
        cxt.fail(_`${exceeds}(${cxt.data}) || !${regExp}.test(${cxt.data})`);
      }
    },
  });
}

function hasMaxLength(schema: unknown): boolean {
  const max = (schema as { maxLength?: unknown } | undefined)?.maxLength;
  return typeof max === 'number' && Number.isInteger(max) && max >= 0;
}

const linearRegExpEngine = Object.assign((pattern: string) => compileLinearPattern(pattern), {
  // Only read by Ajv's standalone code generation, which Toolpack does not use.
  code: '@toolpack/core/linear-pattern',
});

let sharedAjv: Ajv2020 | undefined;
function getAjv(): Ajv2020 {
  sharedAjv ??= createAjv();
  return sharedAjv;
}

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles `schema` once and returns a validator whose failures name the path and the rule
 * (`/count must be <= 100`, `/name is required`). Throws `E_SCHEMA` when the schema itself
 * is not valid JSON Schema 2020-12.
 */
export function createArgumentValidator(schema: JsonSchema): ArgumentValidator {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    try {
      validate = getAjv().compile(schema);
    } catch (cause) {
      throw new ToolpackError(
        'E_SCHEMA',
        `The input schema is not valid JSON Schema: ${(cause as Error).message}.`,
        {
          cause,
          hint: 'Check the schema against JSON Schema 2020-12.',
        },
      );
    }
    compiled.set(schema, validate);
  }
  const check = validate;
  const closedObject = readClosedObject(schema);
  return (args) => {
    // Ajv (allErrors) builds one error object per unknown key before anything is reported;
    // count them first, without Ajv, and stop early when there are more than can be shown.
    if (closedObject !== undefined) {
      const unknown = findUnknownKeys(args, closedObject);
      if (unknown !== undefined && unknown.count > MAX_REPORTED_ARGUMENT_ERRORS) {
        const errors = unknown.first.map((key) => describeUnknownKey(key, '', closedObject));
        return summarize(errors, unknown.count - errors.length);
      }
    }
    patternTextLeft = MAX_UNBOUNDED_PATTERN_TEXT;
    // A string differing only in case from a listed value of a case-ignoring enum is that value.
    if (check(canonicalizeArguments(schema, args))) return { valid: true };
    const all = check.errors ?? [];
    const errors = all
      .slice(0, MAX_REPORTED_ARGUMENT_ERRORS)
      .map((error) => describeAjvError(error, schema));
    return summarize(errors, all.length - errors.length);
  };
}

function summarize(errors: ArgumentError[], moreErrors: number): ArgumentValidation {
  const listed = errors.map((e) => e.message).join('; ');
  return {
    valid: false,
    errors,
    moreErrors,
    message:
      moreErrors > 0
        ? `${listed}; and ${moreErrors} more ${moreErrors === 1 ? 'problem' : 'problems'}`
        : listed,
  };
}

/** The declared property names of a schema that refuses any other, else undefined. */
function readClosedObject(schema: JsonSchema): Set<string> | undefined {
  const record = schema as Record<string, unknown>;
  if (record.additionalProperties !== false || 'patternProperties' in record) return undefined;
  const properties = record.properties;
  const names =
    typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  return new Set(names);
}

function findUnknownKeys(
  args: unknown,
  known: Set<string>,
): { first: string[]; count: number } | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const first: string[] = [];
  let count = 0;
  for (const key of Object.keys(args)) {
    if (known.has(key)) continue;
    count += 1;
    if (first.length < MAX_REPORTED_ARGUMENT_ERRORS) first.push(key);
  }
  return { first, count };
}

function clip(text: string): string {
  return text.length <= MAX_ECHOED_CHARS ? text : `${text.slice(0, MAX_ECHOED_CHARS)}…`;
}

/** `known`: the names accepted beside it, so a near miss (`maxlength`) gets its fix (`max_length`). */
function describeUnknownKey(
  key: string,
  base: string,
  known: Iterable<string> = [],
): ArgumentError {
  const path = clip(`${base}/${escapePointer(key)}`);
  const closest = key.length > MAX_ECHOED_CHARS ? undefined : findClosestName(key, known);
  return {
    path,
    rule: 'additionalProperties',
    message: `${path} is not an accepted argument${closest === undefined ? '' : ` (did you mean ${closest}?)`}`,
  };
}

/**
 * The property names declared beside an `additionalProperties` that failed: the schema
 * object that holds it, found by the error's schema path (`#/properties/opts/additionalProperties`).
 */
function readSiblingProperties(schema: JsonSchema, schemaPath: string): string[] {
  const segments = schemaPath
    .replace(/^#\/?/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .slice(0, -1)
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = schema;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return [];
    node = (node as Record<string, unknown>)[segment];
  }
  const properties = (node as { properties?: unknown } | null | undefined)?.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** One-shot form of `createArgumentValidator` (the compiled schema is cached per object). */
export function validateArguments(schema: JsonSchema, args: unknown): ArgumentValidation {
  return createArgumentValidator(schema)(args);
}

/** Every reason `schema` is not valid JSON Schema 2020-12, empty when it is. */
export function findSchemaProblems(schema: unknown): string[] {
  const ajv = getAjv();
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return ['a schema must be a JSON object'];
  }
  if (ajv.validateSchema(schema as JsonSchema) !== true) {
    return (ajv.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  }
  const patternProblems = findSchemaPatternProblems(schema as JsonSchema);
  if (patternProblems.length > 0) return patternProblems;
  // Meta-validation catches everything but unresolvable references; compiling (code
  // generation, ~1 ms a schema) is only needed to find those, so only schemas with a
  // reference pay for it. Listing 1,000 tool folders must stay fast.
  if (/"\$(dynamic)?ref"/.test(JSON.stringify(schema))) {
    try {
      ajv.compile(schema as JsonSchema);
    } catch (error) {
      return [(error as Error).message];
    }
  }
  return [];
}

/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const SCHEMA_KEYWORDS = new Set([
  'additionalProperties',
  'contains',
  'contentSchema',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP_KEYWORDS = new Set([
  '$defs',
  'definitions',
  'dependentSchemas',
  'patternProperties',
  'properties',
]);

/**
 * `/properties/id/pattern the pattern "(a)\1" uses a back-reference …` for each pattern of a
 * (meta-valid) schema that the linear-time engine cannot run. Walks keyword positions only,
 * so a property named `pattern` or a `const` holding one is not taken for a pattern.
 */
function findSchemaPatternProblems(schema: JsonSchema): string[] {
  const problems: string[] = [];
  // A list, not recursion: a schema from a file can nest deeper than the call stack.
  const pending: { node: unknown; pointer: string }[] = [{ node: schema, pointer: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, pointer } = next;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === 'string') {
      const problem = findPatternProblem(record.pattern);
      if (problem !== undefined) problems.push(`${pointer}/pattern ${problem}`);
    }
    for (const [keyword, value] of Object.entries(record)) {
      const at = `${pointer}/${escapePointer(keyword)}`;
      if (SCHEMA_KEYWORDS.has(keyword)) pending.push({ node: value, pointer: at });
      else if (SCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
        value.forEach((item, index) => pending.push({ node: item, pointer: `${at}/${index}` }));
      } else if (SCHEMA_MAP_KEYWORDS.has(keyword) && typeof value === 'object' && value !== null) {
        for (const [name, item] of Object.entries(value)) {
          const itemPointer = `${at}/${escapePointer(name)}`;
          if (keyword === 'patternProperties') {
            const problem = findPatternProblem(name);
            // A key with spaces would end the pointer early; name the keyword instead.
            if (problem !== undefined)
              problems.push(`${/\s/.test(name) ? at : itemPointer} ${problem}`);
          }
          pending.push({ node: item, pointer: itemPointer });
        }
      }
    }
  }
  return problems;
}

function describeAjvError(error: ErrorObject, schema: JsonSchema): ArgumentError {
  const base = clip(error.instancePath === '' ? '' : error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const path = `${base}/${escapePointer(String(params.missingProperty))}`;
      return { path, rule: 'required', message: `${path} is required` };
    }
    case 'additionalProperties':
      return describeUnknownKey(
        String(params.additionalProperty),
        base,
        readSiblingProperties(schema, error.schemaPath),
      );
    case 'enum': {
      const path = base || '/';
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { path, rule: 'enum', message: `${path} must be one of ${allowed}` };
    }
    case 'const': {
      const path = base || '/';
      return {
        path,
        rule: 'const',
        message: `${path} must be ${JSON.stringify(params.allowedValue)}`,
      };
    }
    default: {
      const path = base || '/';
      return { path, rule: error.keyword, message: `${path} ${error.message ?? 'is invalid'}` };
    }
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
