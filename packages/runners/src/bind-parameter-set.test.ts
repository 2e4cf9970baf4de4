import { addParameterSetBranches, createArgumentValidator } from '@toolpack/core';
import type { JsonSchema, ToolParameterSet } from '@toolpack/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindParameterSet } from './bind-parameter-set.ts';

function set(name: string, parameters: string[], required: string[] = [], isDefault = false) {
  return { name, isDefault, parameters, required } satisfies ToolParameterSet;
}

function bound(sets: ToolParameterSet[], args: Record<string, unknown>): string {
  const binding = bindParameterSet(sets, args);
  return binding.bound ? binding.set.name : `error: ${binding.message}`;
}

// Each expectation is what PowerShell 7.6 binds for the same declaration (probed with
// $PSCmdlet.ParameterSetName); discovery's parameter-sets test checks the rule against the
// engine for every corpus command.
describe('bindParameterSet', () => {
  const byNameOrId = [
    set('ByName', ['Name', 'Shared'], ['Name']),
    set('ById', ['Id', 'Shared'], ['Id']),
  ];

  it('binds the one set whose parameters are given', () => {
    expect(bound(byNameOrId, { Name: 'a' })).toBe('ByName');
    expect(bound(byNameOrId, { Id: 1, Shared: 'x' })).toBe('ById');
  });

  it('names what each set lacks or has too much when none fits', () => {
    expect(bound(byNameOrId, { Name: 'a', Id: 1 })).toBe(
      'error: the arguments fit no parameter set: set ByName does not take Id; set ById does not take Name',
    );
    expect(bound(byNameOrId, { Shared: 'x' })).toBe(
      'error: the arguments lack what the parameter sets they fit need: set ByName needs Name; set ById needs Id',
    );
  });

  it('counts an argument as given whatever its value, as splatting does', () => {
    const flags = [set('List', ['Name'], [], true), set('Flags', ['All', 'Force'])];
    expect(bound(flags, {})).toBe('List');
    expect(bound(flags, { All: false })).toBe('Flags');
  });

  it('takes the default set whenever every argument belongs to it, even when it then lacks one', () => {
    const sets = [set('A', ['Name', 'Shared'], ['Name'], true), set('B', ['Id', 'Shared'])];
    expect(bound(sets, { Shared: 'x' })).toMatch(
      /^error: the arguments fit the default set A, .* needs Name \(to use B instead/,
    );
    expect(bound(sets, { Id: 1 })).toBe('B');
    const optional = [set('A', ['Name', 'Shared'], [], true), set('B', ['Id', 'Shared'])];
    expect(bound(optional, { Shared: 'x' })).toBe('A');
  });

  it('says when a set can never be bound because the engine demands a parameter it does not take', () => {
    const sets = [
      set('Full', ['Count'], ['Level'], true),
      set('Fast', ['Count', 'Quick', 'Level'], ['Quick', 'Level']),
    ];
    expect(bound(sets, { Count: 1 })).toBe(
      'error: the arguments fit the default set Full, which PowerShell binds whenever it can, and it can never be bound: PowerShell demands Level there, which it does not take (to use Fast instead, add a parameter the default set does not take)',
    );
    expect(bound(sets, { Quick: true, Level: 2 })).toBe('Fast');
  });

  it('binds a default set no parameter names when no argument is given', () => {
    const sets = [set('None', [], [], true), set('ByName', ['Name'])];
    expect(bound(sets, {})).toBe('None');
    expect(bound(sets, { Name: 'n' })).toBe('ByName');
  });

  it('without a default, refuses several complete sets and names the parameter that would choose', () => {
    const sets = [set('A', ['Name', 'Shared']), set('B', ['Id', 'Shared'])];
    expect(bound(sets, { Shared: 'x' })).toBe(
      'error: the arguments fit the sets A and B and there is no default set to choose between them: add a parameter that picks one (Name for set A; Id for set B)',
    );
    // A set whose mandatory parameter is missing drops out, and the other is bound.
    const oneMandatory = [set('A', ['Name', 'Shared'], ['Name']), set('B', ['Id', 'Shared'])];
    expect(bound(oneMandatory, {})).toBe('B');
  });

  it('treats set names as PowerShell does: case-sensitive, so two casings are two sets', () => {
    const sets = [set('byname', ['Name'], ['Name']), set('ByName', ['Extra']), set('ById', ['Id'])];
    expect(bound(sets, { Name: 'n' })).toBe('byname');
    expect(bound(sets, { Extra: 'n' })).toBe('ByName');
    expect(bound(sets, {})).toMatch(/^error: the arguments fit the sets ByName and ById/);
  });
});

/** Every subset of `names`, as arguments. */
function subsetsOf(names: readonly string[]): Array<Record<string, unknown>> {
  return Array.from({ length: 1 << names.length }, (_unused, mask) =>
    Object.fromEntries(names.filter((_n, i) => (mask & (1 << i)) !== 0).map((n) => [n, 1])),
  );
}

const NAMES = ['P0', 'P1', 'P2', 'P3'];
const randomSets = fc
  .record({
    sets: fc.array(
      fc.record({
        parameters: fc.subarray(NAMES),
        // Engine-shaped sets may require a parameter they cannot take (parameter-sets.ts).
        required: fc.subarray(NAMES, { maxLength: 2 }),
      }),
      { minLength: 2, maxLength: 4 },
    ),
    defaultIndex: fc.option(fc.nat(3), { nil: undefined }),
  })
  .map(({ sets, defaultIndex }) => {
    const built: ToolParameterSet[] = sets.map((set, index) => ({
      name: `S${index}`,
      isDefault: index === defaultIndex,
      parameters: set.parameters,
      required: set.required.filter((name) => set.parameters.includes(name) || index % 2 === 1),
    }));
    return [...built.filter((set) => set.isDefault), ...built.filter((set) => !set.isDefault)];
  });

describe('bindParameterSet and the oneOf schema', () => {
  it("agree on every call: the schema accepts exactly what binds, by the bound set's branch", () => {
    fc.assert(
      fc.property(randomSets, (sets) => {
        const schema = addParameterSetBranches(
          {
            type: 'object',
            properties: Object.fromEntries(NAMES.map((name) => [name, { type: 'integer' }])),
            additionalProperties: false,
          },
          sets,
        );
        const branches = schema.oneOf as JsonSchema[];
        for (const call of subsetsOf(NAMES)) {
          const binding = bindParameterSet(sets, call);
          const valid = createArgumentValidator(schema)(call).valid;
          expect(valid, JSON.stringify({ sets, call })).toBe(binding.bound);
          if (!binding.bound) continue;
          const matching = branches.filter((branch) => createArgumentValidator(branch)(call).valid);
          expect(matching.map((branch) => branch.title)).toEqual([binding.set.name]);
        }
      }),
      { numRuns: 300, seed: 20_261_124 },
    );
  });
});
