import type { DiscoveredTool } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { flattenListedSchema, hasRootCombinator } from './flat-input-schema.ts';

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

describe('flat input schemas', () => {
  it('finds oneOf, anyOf and allOf at the root only', () => {
    expect(hasRootCombinator({ type: 'object', anyOf: [{ required: ['a'] }] })).toBe(true);
    expect(hasRootCombinator({ type: 'object', allOf: [] })).toBe(true);
    expect(
      hasRootCombinator({
        type: 'object',
        properties: { a: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
      }),
    ).toBe(false);
  });

  it('drops the root combinators and keeps properties, required and nested ones', () => {
    const schema = {
      type: 'object' as const,
      properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { type: 'integer' } },
      required: ['b'],
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
      allOf: [{ not: { required: ['x'] } }],
    };
    const flat = flattenListedSchema(toolWith(schema));
    expect(flat).toEqual({
      inputSchema: { type: 'object', properties: schema.properties, required: ['b'] },
      description: 'Does t.',
    });
    // The tool's own schema, which calls are checked against, is left whole.
    expect(schema.anyOf).toHaveLength(2);
  });

  it('spells the parameter sets out in the description, the default marked', () => {
    const flat = flattenListedSchema(
      toolWith(
        { type: 'object', oneOf: [] },
        {
          parameterSets: [
            { name: 'ByName', isDefault: true, parameters: ['Name', 'Top'], required: ['Name'] },
            { name: 'Empty', isDefault: false, parameters: [], required: [] },
          ],
        },
      ),
    );
    expect(flat.description).toBe(
      'Does t.\n\nParameter sets (send the parameters of one set only): ByName (default): Name (required), Top; Empty: no parameters.',
    );
  });
});
