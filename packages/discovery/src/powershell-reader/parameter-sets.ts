import type { JsonSchema, ObjectJsonSchema, ToolParameterSet } from '@toolpack/core';
import { constantString, isTruthy } from './attribute-values.ts';
import type { PsAttribute, PsParameter } from './reader.ts';

/** The name PowerShell gives the membership of a `[Parameter()]` that names no set. */
const ALL_SETS = '__AllParameterSets';

interface Membership {
  /** A set name, or ALL_SETS. */
  set: string;
  mandatory: boolean;
}

function readMemberships(parameter: PsParameter): Membership[] {
  const attributes = parameter.attributes.filter((attribute) => attribute.key === 'parameter');
  // A parameter with no [Parameter()] is in every set, optional.
  if (attributes.length === 0) return [{ set: ALL_SETS, mandatory: false }];
  return attributes.map((attribute) => {
    const named = attribute.named.get('parametersetname');
    const set = named === undefined ? ALL_SETS : (constantString(named.value) ?? named.text);
    return { set, mandatory: isTruthy(attribute.named.get('mandatory')) };
  });
}

/**
 * Each parameter that two `[Parameter()]` attributes put in the same set (two naming no set
 * count as the same): PowerShell refuses to load such a command.
 */
export function findRepeatedSets(
  parameters: readonly PsParameter[],
): Array<{ parameter: PsParameter; set: string }> {
  const repeated: Array<{ parameter: PsParameter; set: string }> = [];
  for (const parameter of parameters) {
    const seen = new Set<string>();
    for (const { set } of readMemberships(parameter)) {
      if (seen.has(set)) repeated.push({ parameter, set });
      seen.add(set);
    }
  }
  return repeated;
}

/**
 * A param block's parameter sets as PowerShell builds them, or undefined when it has one.
 * Names are compared case-sensitively, as the engine does (`'ByName'` and `'byname'` are two
 * sets, and a `DefaultParameterSetName` differing in case from every set is a set of its own).
 * A parameter whose `[Parameter()]` attributes name no set (or `__AllParameterSets`) is in
 * every set. `parameters` names
 * the parameters the input schema has (one left out for its type is in no set).
 */
export function readParameterSets(input: {
  parameters: readonly PsParameter[];
  blockAttributes: readonly PsAttribute[];
  /** The names that made it into the input schema. */
  kept: ReadonlySet<string>;
}): ToolParameterSet[] | undefined {
  const memberships = input.parameters.map((parameter) => ({
    name: parameter.name,
    memberships: readMemberships(parameter),
  }));
  const names: string[] = [];
  for (const { memberships: list } of memberships)
    for (const { set } of list) if (set !== ALL_SETS && !names.includes(set)) names.push(set);
  const binding = input.blockAttributes.find((attribute) => attribute.key === 'cmdletbinding');
  const defaultName = constantString(binding?.named.get('defaultparametersetname')?.value);
  if (names.length === 0) return undefined;
  // A default set that no parameter names is a set of its own, holding the shared parameters.
  if (defaultName !== undefined && !names.includes(defaultName)) names.unshift(defaultName);
  if (names.length < 2) return undefined;

  const sets: ToolParameterSet[] = names.map((name) => ({
    name,
    isDefault: name === defaultName,
    parameters: [],
    required: [],
  }));
  for (const { name, memberships: list } of memberships) {
    if (!input.kept.has(name)) continue;
    // A parameter that also names a set is bound only in the sets it names: Get-Command lists it
    // in the others too, but the engine narrows a call to its named sets once it is given.
    const everywhere = list.some((membership) => membership.set !== ALL_SETS)
      ? undefined
      : list.find((membership) => membership.set === ALL_SETS);
    for (const set of sets) {
      const membership = list.find((m) => m.set === set.name) ?? everywhere;
      if (membership === undefined) continue;
      set.parameters.push(name);
      if (membership.mandatory) set.required.push(name);
    }
  }
  // The default set is described first; the others keep the order the source names them in.
  return [...sets.filter((set) => set.isDefault), ...sets.filter((set) => !set.isDefault)];
}

/** "The arguments name only these parameters": true of `{}` too. */
function onlyNames(names: readonly string[]): JsonSchema {
  return names.length === 0 ? { maxProperties: 0 } : { propertyNames: { enum: [...names] } };
}

/**
 * Gives an input schema one `oneOf` branch per set, the default first, so a call validates
 * exactly when PowerShell binds it to one set. A branch requires its set's mandatory parameters
 * and allows only its set's parameters. PowerShell takes the default set whenever every named
 * argument belongs to it (and then insists on its mandatory parameters), so every other branch
 * also refuses calls whose names all fit the default set: a call that fits the default and
 * another set matches one branch, not two. `required` at the top keeps the parameters every set
 * requires, for clients that ignore `oneOf`.
 */
export function addParameterSetBranches(
  schema: ObjectJsonSchema,
  sets: readonly ToolParameterSet[],
): ObjectJsonSchema {
  const defaultSet = sets.find((set) => set.isDefault);
  const branches = sets.map((set) => {
    const branch: JsonSchema = {
      title: set.name,
      description: `Parameter set ${set.name}${set.isDefault ? ' (the default)' : ''}: ${set.parameters.length === 0 ? 'no parameters' : set.parameters.join(', ')}.`,
    };
    if (set.required.length > 0) branch.required = [...set.required];
    Object.assign(branch, onlyNames(set.parameters));
    if (defaultSet !== undefined && !set.isDefault) branch.not = onlyNames(defaultSet.parameters);
    return branch;
  });
  const required = (schema.required ?? []).filter((name) =>
    sets.every((set) => set.required.includes(name)),
  );
  const result: ObjectJsonSchema = { ...schema, oneOf: branches };
  if (required.length > 0) result.required = required;
  else delete result.required;
  return result;
}
