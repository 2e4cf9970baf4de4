import type { ToolParameterSet } from '@toolpack/core';
import { attributeString, isTruthy } from './attribute-values.ts';
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
    const set = named === undefined ? ALL_SETS : (attributeString(named) ?? named.text);
    return { set, mandatory: isTruthy(attribute.named.get('mandatory')) };
  });
}

/**
 * Each parameter that two `[Parameter()]` attributes put in the same set (two naming no set
 * count as the same, and case does not count): PowerShell refuses to load such a command.
 */
export function findRepeatedSets(
  parameters: readonly PsParameter[],
): Array<{ parameter: PsParameter; set: string }> {
  const repeated: Array<{ parameter: PsParameter; set: string }> = [];
  for (const parameter of parameters) {
    // The engine compares a parameter's own sets ignoring case ('ByName' and 'byname' on one
    // parameter are one set twice), though the command's sets differ by case.
    const seen = new Set<string>();
    for (const { set } of readMemberships(parameter)) {
      if (seen.has(set.toLowerCase())) repeated.push({ parameter, set });
      seen.add(set.toLowerCase());
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
  const defaultName = attributeString(binding?.named.get('defaultparametersetname'));
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
    const named = list.some((membership) => membership.set !== ALL_SETS);
    const everywhere = list.find((membership) => membership.set === ALL_SETS);
    for (const set of sets) {
      const own = list.find((membership) => membership.set === set.name);
      if (own !== undefined) {
        set.parameters.push(name);
        // A mandatory attribute naming no set makes the parameter mandatory in its named sets too.
        if (own.mandatory || everywhere?.mandatory === true) set.required.push(name);
      } else if (everywhere !== undefined) {
        // A parameter that also names a set is bound only in the sets it names: Get-Command
        // lists it in the others too, and a mandatory one is still demanded there, but giving
        // it narrows the call to its named sets. Such a set requires what it cannot take.
        if (!named) set.parameters.push(name);
        if (everywhere.mandatory) set.required.push(name);
      }
    }
  }
  // The default set is described first; the others keep the order the source names them in.
  return [...sets.filter((set) => set.isDefault), ...sets.filter((set) => !set.isDefault)];
}
