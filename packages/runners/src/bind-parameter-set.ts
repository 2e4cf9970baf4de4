import type { ToolParameterSet } from '@toolpack/core';

export type ParameterSetBinding =
  | { bound: true; set: ToolParameterSet }
  | {
      bound: false;
      /** The sets the argument names fit (every name is one of theirs); empty when none does. */
      fitting: ToolParameterSet[];
      /** Why no set was bound, set by set: what a person or a model needs to fix the call. */
      message: string;
    };

function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

function missingFrom(set: ToolParameterSet, given: ReadonlySet<string>): string[] {
  return set.required.filter((name) => !given.has(name));
}

/** `needs Name`, or why the set can never be bound (it demands a parameter it does not take). */
function describeNeeds(set: ToolParameterSet, given: ReadonlySet<string>): string {
  const missing = missingFrom(set, given);
  const untakeable = missing.filter((name) => !set.parameters.includes(name));
  if (untakeable.length > 0)
    return `can never be bound: PowerShell demands ${listNames(untakeable)} there, which it does not take`;
  return `needs ${listNames(missing)}`;
}

function describeMisfit(
  set: ToolParameterSet,
  names: readonly string[],
  given: ReadonlySet<string>,
) {
  const parts: string[] = [];
  const missing = missingFrom(set, given);
  const extra = names.filter((name) => !set.parameters.includes(name));
  if (missing.length > 0) parts.push(describeNeeds(set, given));
  if (extra.length > 0) parts.push(`does not take ${listNames(extra)}`);
  return `set ${set.name}${set.isDefault ? ' (the default)' : ''} ${parts.join(' and ')}`;
}

/**
 * Decides the parameter set a call binds, by PowerShell's rule (checked against the engine in
 * discovery's parameter-sets tests): every argument given counts as bound, whatever its value;
 * the sets left are those taking every argument; the default set wins whenever it is among
 * them (and then its mandatory parameters must be there); otherwise the one set left whose
 * mandatory parameters are all given; several such sets are ambiguous, as is none among
 * several.
 */
export function bindParameterSet(
  sets: readonly ToolParameterSet[],
  args: Readonly<Record<string, unknown>>,
): ParameterSetBinding {
  const names = Object.keys(args);
  const given = new Set(names);
  const fitting = sets.filter((set) => names.every((name) => set.parameters.includes(name)));
  const complete = fitting.filter((set) => missingFrom(set, given).length === 0);
  const defaultSet = fitting.find((set) => set.isDefault);
  if (defaultSet !== undefined) {
    if (complete.includes(defaultSet)) return { bound: true, set: defaultSet };
    return {
      bound: false,
      fitting,
      message: `the arguments fit the default set ${defaultSet.name}, which PowerShell binds whenever it can, and it ${describeNeeds(defaultSet, given)}${fitting.length > 1 ? ` (to use ${listNames(fitting.filter((set) => set !== defaultSet).map((set) => set.name))} instead, add a parameter the default set does not take)` : ''}`,
    };
  }
  if (complete.length === 1) return { bound: true, set: complete[0] as ToolParameterSet };
  if (complete.length > 1) {
    const choosers = complete.map((set) => {
      const own = set.parameters.filter(
        (name) =>
          !given.has(name) &&
          complete.every((other) => other === set || !other.parameters.includes(name)),
      );
      return own.length === 0
        ? `set ${set.name} has no parameter of its own`
        : `${listNames(own)} for set ${set.name}`;
    });
    return {
      bound: false,
      fitting: complete,
      message: `the arguments fit the sets ${listNames(complete.map((set) => set.name))} and there is no default set to choose between them: add a parameter that picks one (${choosers.join('; ')})`,
    };
  }
  if (fitting.length === 0)
    return {
      bound: false,
      fitting,
      message: `the arguments fit no parameter set: ${sets.map((set) => describeMisfit(set, names, given)).join('; ')}`,
    };
  return {
    bound: false,
    fitting,
    message: `the arguments lack what the parameter sets they fit need: ${fitting.map((set) => describeMisfit(set, names, given)).join('; ')}`,
  };
}
