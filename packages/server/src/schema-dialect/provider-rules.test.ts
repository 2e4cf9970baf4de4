import { describe, expect, it } from 'vitest';
import {
  findRuleViolations,
  findToolRuleViolations,
  PROVIDER_RULES,
  type SchemaProvider,
} from './provider-rules.ts';

const PROVIDERS = Object.keys(PROVIDER_RULES) as SchemaProvider[];

const plain = {
  type: 'object',
  properties: { Name: { type: 'string', description: 'A name.' } },
  required: ['Name'],
};

describe('provider rules', () => {
  it('name their sources', () => {
    for (const provider of PROVIDERS)
      expect(PROVIDER_RULES[provider].sources.length, provider).toBeGreaterThan(0);
  });

  it('accept a plain object schema everywhere but strict, which wants it closed', () => {
    for (const provider of PROVIDERS.filter((p) => p !== 'openai-strict'))
      expect(findRuleViolations(plain, provider), provider).toEqual([]);
    expect(findRuleViolations(plain, 'openai-strict')).toEqual([
      '(root): additionalProperties must be false',
    ]);
    expect(findRuleViolations({ ...plain, additionalProperties: false }, 'openai-strict')).toEqual(
      [],
    );
  });

  it('refuse a root oneOf at Anthropic and OpenAI, a root enum at OpenAI only', () => {
    const oneOf = { ...plain, oneOf: [{ required: ['Name'] }] };
    expect(findRuleViolations(oneOf, 'anthropic')).toEqual([
      '(root): oneOf is refused at the root',
    ]);
    expect(findRuleViolations(oneOf, 'openai')).toEqual(['(root): oneOf is refused at the root']);
    const enumRoot = { ...plain, enum: [{}] };
    expect(findRuleViolations(enumRoot, 'anthropic')).toEqual([]);
    expect(findRuleViolations(enumRoot, 'openai')).toEqual(['(root): enum is refused at the root']);
  });

  it('refuse a root that is not an object', () => {
    expect(findRuleViolations({ type: 'string' }, 'anthropic')).toEqual([
      '(root): type is "string", not "object"',
    ]);
  });

  it("hold Gemini to its Schema's fields, one type name, string enums and two formats", () => {
    const schema = {
      ...plain,
      additionalProperties: false,
      properties: {
        A: { type: 'string', examples: ['x'], format: 'date' },
        B: { type: ['string', 'null'] },
        C: { type: 'integer', enum: [1, 2] },
        D: { type: 'array', items: { type: 'string', 'x-enumIgnoreCase': true } },
      },
    };
    expect(findRuleViolations(schema, 'gemini')).toEqual([
      '(root): keyword additionalProperties is not supported',
      '(root).A: keyword examples is not supported',
      '(root).A: format date is not supported',
      '(root).B: type must be one name',
      '(root).C: enum values must be strings',
      '(root).D[]: keyword x-enumIgnoreCase is not supported',
    ]);
  });

  it('hold strict mode to required properties, closed nested objects and its keywords', () => {
    const schema = {
      type: 'object',
      properties: {
        A: { type: 'string', minLength: 1 },
        B: { type: 'object', properties: { C: { type: 'integer' } }, required: [] },
        D: { description: 'any value' },
      },
      required: ['A'],
      additionalProperties: false,
    };
    expect(findRuleViolations(schema, 'openai-strict')).toEqual([
      '(root): not required: B, D',
      '(root).A: keyword minLength is not supported',
      '(root).B: additionalProperties must be false',
      '(root).B: not required: C',
      '(root).D: a schema needs a type',
    ]);
  });

  it('refuse objects nested deeper than strict mode takes', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 11; depth++)
      schema = {
        type: 'object',
        properties: { x: schema },
        required: ['x'],
        additionalProperties: false,
      };
    expect(findRuleViolations(schema, 'openai-strict')).toEqual([
      '(root).x.x.x.x.x.x.x.x.x.x: objects nested more than 10 deep',
    ]);
  });

  it("hold tool and property names to each provider's pattern", () => {
    const tool = {
      name: '1password_get',
      inputSchema: { type: 'object', properties: { 'dry-run': { type: 'boolean' } } },
    };
    expect(findToolRuleViolations(tool, 'anthropic')).toEqual([]);
    expect(findToolRuleViolations(tool, 'gemini')).toEqual([
      'name "1password_get" is not allowed',
      '(root): property name "dry-run" is not allowed',
    ]);
    expect(findToolRuleViolations({ ...tool, name: 'get.secret' }, 'openai')).toEqual([
      'name "get.secret" is not allowed',
    ]);
  });
});
