import type { JsonSchema } from '@toolpack/core';
import { isCommonParameterName } from '../powershell-reader/common-parameters.ts';
import { canonical, type OurCommand, type PwshCommand } from './powershell-parity-compare.ts';

/** What parity-collect.ps1 adds for issue 19: the OutputType names and each example's binding. */
export interface PwshCommandHelpFacts {
  outputTypes?: string[];
  /** The `.OUTPUTS` sections of the help PowerShell found, as GetHelpContent() gives them. */
  outputs?: string[];
  examples?: Array<{
    line: string;
    /** Parameter name to its bound value; null when the line is not one plain call of the command. */
    bound: Record<string, { constant: boolean; value: unknown }> | null;
    bindingError: string | null;
  }>;
}

/**
 * Whether Toolpack's output schema agrees with the `OutputType` PowerShell reports: a schema
 * only for exactly one declared type, and none where PowerShell sees several or none.
 */
export function compareOutputTypes(
  command: PwshCommand & PwshCommandHelpFacts,
  ours: OurCommand,
  label: string,
): string[] {
  if (command.loadError !== undefined || ours.tool?.outputSchema === undefined) return [];
  const names = [...new Set((command.outputTypes ?? []).map((name) => name.toLowerCase()))];
  if (names.length !== 1)
    return [
      `${label}: Toolpack has an output schema, PowerShell reports ${names.length} output types (${names.join(', ')})`,
    ];
  // Each described property comes from a `Name <type>` line of the help PowerShell found.
  const text = (command.outputs ?? []).join('\n');
  const mismatches: string[] = [];
  for (const [name, property] of Object.entries(ours.tool.outputSchema.properties ?? {})) {
    const description = (property as { description?: string }).description;
    if (description === undefined) continue;
    if (!new RegExp(`^[ \\t]+${name}[ \\t]+<`, 'm').test(text))
      mismatches.push(
        `${label}: the output property ${name} is described, but PowerShell's .OUTPUTS has no line for it`,
      );
  }
  return mismatches;
}

/** PowerShell's bound value in the JSON type of the tool's parameter. */
function coerce(value: unknown, schema: JsonSchema | undefined): unknown {
  if (schema?.type === 'array') {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => coerce(item, schema.items as JsonSchema | undefined));
  }
  if (schema?.type === 'string' && typeof value === 'number') return String(value);
  return value;
}

/** .NET parameter types whose values a JSON Schema checks exactly: no conversion PowerShell may refuse. */
const EXACT_TYPES =
  /^System\.(String|Int32|Int64|Double|Decimal|Single|Boolean|Collections\.Hashtable|Management\.Automation\.SwitchParameter)(\[\])?$/;

/**
 * Intended deviation (README, "Input examples"): an example is checked against the input
 * schema, so a refusal PowerShell makes that the schema cannot carry (a conversion to
 * [timespan] or [version], a validation attribute Toolpack left out with a warning) does not
 * keep it out of inputExamples. Such an example may or may not be among Toolpack's.
 */
function refusalBeyondSchema(
  error: string,
  command: PwshCommand,
  result: OurCommand['result'],
): boolean {
  const name = /on parameter '([^']+)'/.exec(error)?.[1];
  if (name === undefined) return false;
  const parameter = (command.parameters ?? []).find((p) => p.name === name);
  if (parameter !== undefined && !EXACT_TYPES.test(parameter.type)) return true;
  return result.diagnostics.some(
    (d) =>
      (d.code === 'W_VALIDATION_IGNORED' || d.code === 'W_PATTERN_CHANGED') &&
      d.message.includes(`$${name} `),
  );
}

/**
 * Whether Toolpack's input examples are the examples PowerShell binds to the command with
 * constant values, each with the same arguments, in order. An example Toolpack left out with
 * W_EXAMPLE_IGNORED (its values break the schema) is not expected.
 */
export function compareExamples(
  command: PwshCommand & PwshCommandHelpFacts,
  ours: OurCommand,
  label: string,
): string[] {
  if (command.loadError !== undefined || ours.tool === undefined) return [];
  const properties = (ours.tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const ignored = ours.result.diagnostics.filter(
    (d) =>
      d.code === 'W_EXAMPLE_IGNORED' &&
      d.message.includes(command.kind === 'function' ? `function ${command.name} ` : 'the script'),
  );
  // `undefined`: PowerShell refuses it for a reason the schema cannot carry (see above).
  const expected: Array<Record<string, unknown> | undefined> = [];
  (command.examples ?? []).forEach((example, index) => {
    if (example.bindingError !== null) {
      if (refusalBeyondSchema(example.bindingError, command, ours.result)) expected.push(undefined);
      return;
    }
    if (example.bound === null) return;
    const entries = Object.entries(example.bound);
    if (entries.some(([name, bound]) => !bound.constant || isCommonParameterName(name))) return;
    if (ignored.some((d) => d.message.startsWith(`Example ${index + 1} of`))) return;
    expected.push(
      Object.fromEntries(
        entries.map(([name, bound]) => [name, coerce(bound.value, properties[name])]),
      ),
    );
  });
  const actual = (ours.tool.inputExamples ?? []).map((example) => example.arguments);
  let next = 0;
  let fits = true;
  expected.forEach((arguments_, index) => {
    if (arguments_ !== undefined) {
      if (canonical(actual[next]) === canonical(arguments_)) next += 1;
      else fits = false;
      return;
    }
    // Optional: Toolpack's next example belongs here unless it is the next one PowerShell binds.
    const following = expected.slice(index + 1).find((e) => e !== undefined);
    if (actual[next] !== undefined && canonical(actual[next]) !== canonical(following)) next += 1;
  });
  if (fits && next === actual.length) return [];
  return [
    `${label}: input examples ${canonical(actual)} differ from PowerShell's bindings ${canonical(expected.filter((e) => e !== undefined))}`,
  ];
}
