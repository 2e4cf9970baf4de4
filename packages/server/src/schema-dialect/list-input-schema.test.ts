import type { DiscoveredTool } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { listInputSchema } from './list-input-schema.ts';
import { findRuleViolations } from './provider-rules.ts';

function toolWith(inputSchema: DiscoveredTool['inputSchema'], extra: Partial<DiscoveredTool> = {}) {
  return {
    name: 't',
    description: 'Does t.',
    inputSchema,
    source: { kind: 'js-module', path: 't.ts' },
    invocation: { runner: 'node-worker', modulePath: 't.ts', exportName: 't' },
    originalName: 't',
    ...extra,
  } satisfies DiscoveredTool;
}

// What PowerShell's reader makes of Find-Widget: a oneOf branch per parameter set.
const sets = toolWith(
  {
    type: 'object',
    properties: {
      Name: { type: 'string', description: 'The name.' },
      Id: { type: 'integer', description: 'The id.' },
      Top: { type: 'integer', description: 'How many.', default: 10 },
    },
    additionalProperties: false,
    oneOf: [
      { title: 'ByName', required: ['Name'], propertyNames: { enum: ['Name', 'Top'] } },
      { title: 'ById', required: ['Id'], propertyNames: { enum: ['Id', 'Top'] } },
    ],
  },
  {
    parameterSets: [
      { name: 'ByName', isDefault: true, parameters: ['Name', 'Top'], required: ['Name'] },
      { name: 'ById', isDefault: false, parameters: ['Id', 'Top'], required: ['Id'] },
    ],
  },
);

describe('listInputSchema', () => {
  it('exact lists the tool as it is, root oneOf and all', () => {
    expect(listInputSchema(sets, 'exact')).toEqual({
      inputSchema: sets.inputSchema,
      description: 'Does t.',
    });
  });

  it('portable drops the root oneOf and spells the sets out in the description', () => {
    const listed = listInputSchema(sets, 'portable');
    expect(listed.inputSchema).toEqual({
      type: 'object',
      properties: {
        Name: { type: 'string', description: 'The name. Only in set ByName, required there.' },
        Id: { type: 'integer', description: 'The id. Only in set ById, required there.' },
        Top: { type: 'integer', description: 'How many.', default: 10 },
      },
    });
    expect(listed.description).toBe(
      'Does t.\n\nParameter sets (send the parameters of one set only): ByName (default): Name (required), Top; ById: Id (required), Top.',
    );
    // The tool's own schema, which calls are checked against, is left whole.
    expect(sets.inputSchema.oneOf).toHaveLength(2);
    expect(sets.inputSchema.additionalProperties).toBe(false);
  });

  it('portable says in the description what a keyword Gemini refuses meant', () => {
    const listed = listInputSchema(
      toolWith({
        type: 'object',
        properties: {
          Day: { type: 'string', format: 'date', examples: ['2026-01-31'] },
          When: { type: 'string', format: 'date-time' },
          Level: { type: 'integer', enum: [1, 2, 3], 'x-enumIgnoreCase': true },
          Kind: { const: 'fixed' },
          Ratio: { type: ['number', 'null'], exclusiveMinimum: 0 },
          Tags: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
        },
        required: ['Day'],
        additionalProperties: false,
      }),
      'portable',
    );
    expect(listed.inputSchema).toEqual({
      type: 'object',
      properties: {
        Day: { type: 'string', description: 'Format: date. Example: "2026-01-31".' },
        When: { type: 'string', format: 'date-time' },
        Level: { type: 'integer', description: 'One of 1, 2, 3.' },
        Kind: { enum: ['fixed'] },
        Ratio: { type: 'number', description: 'May be null. Greater than 0.' },
        Tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      },
      required: ['Day'],
    });
    for (const provider of ['anthropic', 'openai', 'gemini'] as const)
      expect(findRuleViolations(listed.inputSchema, provider), provider).toEqual([]);
  });

  it('openai-strict requires every property, optional ones nullable, every object closed', () => {
    const listed = listInputSchema(
      toolWith({
        type: 'object',
        properties: {
          Path: { type: 'string', minLength: 1 },
          Mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
          Options: {
            type: 'object',
            properties: { Deep: { type: 'boolean' } },
          },
        },
        required: ['Path'],
        additionalProperties: false,
      }),
      'openai-strict',
    );
    expect(listed.inputSchema).toEqual({
      type: 'object',
      properties: {
        Path: { type: 'string', description: 'At least 1 character.' },
        Mode: {
          type: ['string', 'null'],
          enum: ['a', 'b', null],
          description: 'Default: "a". Null when not given.',
        },
        Options: {
          type: ['object', 'null'],
          properties: {
            Deep: { type: ['boolean', 'null'], description: 'Null when not given.' },
          },
          required: ['Deep'],
          additionalProperties: false,
          description: 'Null when not given.',
        },
      },
      required: ['Path', 'Mode', 'Options'],
      additionalProperties: false,
    });
    expect(findRuleViolations(listed.inputSchema, 'openai-strict')).toEqual([]);
  });

  it('openai-strict flattens parameter sets too: a set-only parameter is nullable', () => {
    const listed = listInputSchema(sets, 'openai-strict');
    expect(listed.inputSchema.required).toEqual(['Name', 'Id', 'Top']);
    expect(listed.inputSchema.properties?.Name?.type).toEqual(['string', 'null']);
    expect(listed.description).toContain('ByName (default): Name (required), Top');
    expect(findRuleViolations(listed.inputSchema, 'openai-strict')).toEqual([]);
  });

  it('inlines local references, which Gemini and strict mode cannot follow', () => {
    const tool = toolWith({
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { city: { type: 'string' } } },
        node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } },
      },
      properties: {
        home: { $ref: '#/$defs/address' },
        list: { $ref: '#/$defs/node' },
        elsewhere: { $ref: 'https://example.com/schema' },
      },
    });
    const listed = listInputSchema(tool, 'portable').inputSchema;
    expect(listed.properties?.home).toEqual({
      type: 'object',
      properties: { city: { type: 'string' } },
    });
    expect(listed.properties?.elsewhere).toEqual({
      description: 'See https://example.com/schema.',
    });
    // Recursion stops: eight levels of next, then a reference named in the description.
    expect(JSON.stringify(listed.properties?.list).match(/"next"/g)).toHaveLength(8);
    expect(listed).not.toHaveProperty('$defs');
    for (const provider of ['anthropic', 'openai', 'gemini'] as const)
      expect(findRuleViolations(listed, provider), provider).toEqual([]);
  });

  it('says in each parameter which sets take it and which require it', () => {
    const tool = toolWith(
      {
        type: 'object',
        properties: {
          A: { type: 'string' },
          B: { type: 'string' },
          C: { type: 'string' },
          D: { type: 'string', description: 'D.' },
          E: { type: 'string' },
        },
      },
      {
        parameterSets: [
          {
            name: 'One',
            isDefault: true,
            parameters: ['A', 'B', 'D', 'E'],
            required: ['A', 'D', 'E'],
          },
          { name: 'Two', isDefault: false, parameters: ['A', 'C', 'D', 'E'], required: ['D'] },
          { name: 'Three', isDefault: false, parameters: ['B', 'D', 'E'], required: ['D'] },
        ],
      },
    );
    const described = Object.fromEntries(
      Object.entries(listInputSchema(tool, 'portable').inputSchema.properties ?? {}).map(
        ([name, schema]) => [name, schema.description],
      ),
    );
    expect(described).toEqual({
      A: 'Only in sets One, Two; required in set One.',
      B: 'Only in sets One, Three.',
      C: 'Only in set Two.',
      D: 'D.',
      E: 'Required in set One.',
    });
  });
});
