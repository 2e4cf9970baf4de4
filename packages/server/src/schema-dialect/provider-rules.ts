import type { JsonSchema } from '@toolpack/core';

/**
 * What the model APIs behind MCP clients accept as a function's parameter schema, written from
 * each provider's documentation (and, where the documentation is silent, the provider's own
 * error message, quoted) as read on 2026-11-28 from stored copies of the pages named in
 * `sources`. One tool a provider refuses makes it refuse the whole request, so every tool of
 * the session is lost: list-input-schema.ts writes schemas these rules accept, and
 * provider-rules.test.ts plus the CLI's served-schemas test hold every served tool to them.
 */
export interface ProviderRules {
  provider: SchemaProvider;
  sources: readonly string[];
  /** Keywords the root must not have. */
  rootForbidden: readonly string[];
  /** When set, the only keywords a schema (at any depth) may have. */
  keywords?: ReadonlySet<string>;
  /** `type` must be one name, never a list. */
  singleType?: boolean;
  /** Every `enum` value must be a string. */
  stringEnums?: boolean;
  /** When set, the only values `format` may have. */
  formats?: ReadonlySet<string>;
  /** Every object schema has `additionalProperties: false` and requires all its properties. */
  closedObjects?: boolean;
  /** Objects nested deeper than this are refused. */
  maxDepth?: number;
  /** What a function's name must match. */
  toolName?: RegExp;
  /** What a property's name must match, at any depth. */
  propertyName?: RegExp;
  /** More properties than this, all objects together, are refused. */
  maxProperties?: number;
}

export type SchemaProvider = 'anthropic' | 'openai' | 'gemini' | 'openai-strict';

/** The rules a schema of each dialect is held to. */
export const DIALECT_PROVIDERS = {
  portable: ['anthropic', 'openai', 'gemini'],
  'openai-strict': ['openai-strict'],
} as const satisfies Record<string, readonly SchemaProvider[]>;

export const PROVIDER_RULES: Readonly<Record<SchemaProvider, ProviderRules>> = {
  anthropic: {
    provider: 'anthropic',
    sources: [
      // input_schema is "a JSON Schema object defining the expected parameters".
      'https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use',
      // Not in the documentation; the API's answer: "tools.0.custom.input_schema: input_schema
      // does not support oneOf, allOf, or anyOf at the top level" (quoted there, 2026-05).
      'https://startdebugging.net/2026/05/fix-tool-call-arguments-did-not-match-schema-in-anthropic-tool-use/',
    ],
    rootForbidden: ['oneOf', 'anyOf', 'allOf'],
    // The tool's name: "must match the regex ^[a-zA-Z0-9_-]{1,64}$" (same page).
    toolName: /^[a-zA-Z0-9_-]{1,64}$/,
  },
  openai: {
    provider: 'openai',
    sources: [
      // parameters: "described as a JSON Schema object".
      'https://platform.openai.com/docs/guides/function-calling',
      // The API's answer, also without strict: "schema must have type 'object' and not have
      // 'oneOf'/'anyOf'/'allOf'/'enum'/'const'/'not' at the top level" (2026-08 wording).
      'https://github.com/goruck/home-generative-agent/pull/545',
    ],
    rootForbidden: ['oneOf', 'anyOf', 'allOf', 'enum', 'const', 'not'],
    // The function's name: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum
    // length of 64" (same page).
    toolName: /^[a-zA-Z0-9_-]{1,64}$/,
  },
  gemini: {
    provider: 'gemini',
    sources: [
      // FunctionDeclaration.parameters is a Schema: "a select subset of an OpenAPI 3.0 schema
      // object" with exactly these fields (page last updated 2025-09-05).
      'https://ai.google.dev/api/caching#Schema',
      'https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Schema',
      // "When using the Gemini Developer API ... [format] must be either 'enum' or
      // 'date-time', otherwise requests will fail."
      'https://firebase.google.com/docs/reference/js/ai.schemashared',
      // The name "must start with a letter or an underscore ... a-z, A-Z, 0-9, or contain
      // underscores, dots and dashes, with a maximum length of 64"; parameter names "must start
      // with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or
      // underscores with a maximum length of 64".
      'https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration',
    ],
    rootForbidden: ['oneOf', 'allOf', 'not'],
    toolName: /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/,
    propertyName: /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/,
    keywords: new Set([
      'type',
      'format',
      'title',
      'description',
      'nullable',
      'enum',
      'maxItems',
      'minItems',
      'properties',
      'required',
      'minProperties',
      'maxProperties',
      'minLength',
      'maxLength',
      'pattern',
      'example',
      'anyOf',
      'propertyOrdering',
      'default',
      'items',
      'minimum',
      'maximum',
    ]),
    singleType: true,
    // Schema.enum is a list of strings.
    stringEnums: true,
    formats: new Set(['enum', 'date-time']),
  },
  'openai-strict': {
    provider: 'openai-strict',
    sources: [
      // "Supported schemas", "Root objects must not be anyOf and must be an object", "All
      // fields must be required", "additionalProperties: false must always be set in
      // objects", "Objects have limitations on nesting depth and size".
      'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas',
      'https://developers.openai.com/api/docs/guides/structured-outputs',
    ],
    rootForbidden: ['oneOf', 'anyOf', 'allOf', 'enum', 'const', 'not'],
    keywords: new Set([
      'type',
      'description',
      'title',
      'properties',
      'required',
      'additionalProperties',
      'items',
      'enum',
      'const',
      'anyOf',
      '$defs',
      '$ref',
      'pattern',
      'format',
      'multipleOf',
      'maximum',
      'exclusiveMaximum',
      'minimum',
      'exclusiveMinimum',
      'minItems',
      'maxItems',
    ]),
    formats: new Set([
      'date-time',
      'time',
      'date',
      'duration',
      'email',
      'hostname',
      'ipv4',
      'ipv6',
      'uuid',
    ]),
    closedObjects: true,
    toolName: /^[a-zA-Z0-9_-]{1,64}$/,
    maxDepth: 10,
    maxProperties: 5000,
  },
};

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/**
 * What a provider would refuse in a tool's parameter schema, one line each (`path: what`);
 * empty when it accepts it.
 */
export function findRuleViolations(schema: JsonSchema, provider: SchemaProvider): string[] {
  const rules = PROVIDER_RULES[provider];
  const found: string[] = [];
  if (schema.type !== 'object')
    found.push(`(root): type is ${JSON.stringify(schema.type)}, not "object"`);
  for (const keyword of rules.rootForbidden)
    if (schema[keyword] !== undefined) found.push(`(root): ${keyword} is refused at the root`);
  let properties = 0;
  const visit = (node: JsonSchema, at: string, depth: number) => {
    for (const keyword of Object.keys(node))
      if (rules.keywords !== undefined && !rules.keywords.has(keyword))
        found.push(`${at}: keyword ${keyword} is not supported`);
    if (rules.singleType === true && node.type !== undefined) {
      if (typeof node.type !== 'string') found.push(`${at}: type must be one name`);
      else if (!GEMINI_TYPES.has(node.type.toLowerCase()))
        found.push(`${at}: type ${node.type} is not supported`);
    }
    if (rules.stringEnums === true && Array.isArray(node.enum))
      if (!node.enum.every((value) => typeof value === 'string'))
        found.push(`${at}: enum values must be strings`);
    if (rules.formats !== undefined && node.format !== undefined)
      if (!rules.formats.has(String(node.format)))
        found.push(`${at}: format ${String(node.format)} is not supported`);
    const isObject =
      node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
    if (rules.closedObjects === true && isObject) {
      if (node.additionalProperties !== false)
        found.push(`${at}: additionalProperties must be false`);
      const names = Object.keys(isSchema(node.properties) ? node.properties : {});
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = names.filter((name) => !required.includes(name));
      if (missing.length > 0) found.push(`${at}: not required: ${missing.join(', ')}`);
    }
    if (rules.closedObjects === true && node.type === undefined)
      if (node.anyOf === undefined && node.$ref === undefined && node.enum === undefined)
        if (node.const === undefined) found.push(`${at}: a schema needs a type`);
    if (isSchema(node.properties)) {
      if (rules.maxDepth !== undefined && depth > rules.maxDepth)
        found.push(`${at}: objects nested more than ${rules.maxDepth} deep`);
      for (const [name, sub] of Object.entries(node.properties)) {
        properties++;
        if (rules.propertyName !== undefined && !rules.propertyName.test(name))
          found.push(`${at}: property name ${JSON.stringify(name)} is not allowed`);
        if (isSchema(sub)) visit(sub, `${at}.${name}`, depth + 1);
      }
    }
    if (isSchema(node.items)) visit(node.items, `${at}[]`, depth);
    for (const keyword of ['anyOf', 'oneOf', 'allOf'])
      if (Array.isArray(node[keyword]))
        (node[keyword] as unknown[]).forEach((branch, index) => {
          if (isSchema(branch)) visit(branch, `${at}.${keyword}[${index}]`, depth);
        });
  };
  visit(schema, '(root)', 1);
  if (rules.maxProperties !== undefined && properties > rules.maxProperties)
    found.push(`(root): ${properties} properties, more than ${rules.maxProperties}`);
  return found;
}

/** What a provider would refuse in a tool as tools/list lists it: its name, then its schema. */
export function findToolRuleViolations(
  tool: { name: string; inputSchema: JsonSchema },
  provider: SchemaProvider,
): string[] {
  const pattern = PROVIDER_RULES[provider].toolName;
  const name =
    pattern === undefined || pattern.test(tool.name)
      ? []
      : [`name ${JSON.stringify(tool.name)} is not allowed`];
  return [...name, ...findRuleViolations(tool.inputSchema, provider)];
}
