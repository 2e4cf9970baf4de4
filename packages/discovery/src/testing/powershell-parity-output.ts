import type { JsonSchema } from '@toolpack/core';
import type { OurCommand, PwshCommand } from './powershell-parity-compare.ts';

/** What parity-collect.ps1 adds for issue 19: the OutputType names and each example's binding. */
export interface PwshCommandHelpFacts {
  outputTypes?: string[];
  examples?: Array<{
    line: string;
    /** Parameter name to its bound value; null when the line is not one plain call of the command. */
    bound: Record<string, { constant: boolean; value: unknown }> | null;
    bindingError: string | null;
  }>;
}

/** Parameters no tool argument carries: an example using one is help text only. */
const COMMON = new Set([
  'verbose',
  'debug',
  'erroraction',
  'warningaction',
  'informationaction',
  'progressaction',
  'errorvariable',
  'warningvariable',
  'informationvariable',
  'outvariable',
  'outbuffer',
  'pipelinevariable',
  'whatif',
  'confirm',
]);

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
  return [];
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

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

/**
 * Whether Toolpack's input examples are the examples PowerShell's static binder binds to the
 * command with constant values, each with the same arguments, in order. An example Toolpack
 * left out with W_EXAMPLE_IGNORED (its values break the schema) is not expected.
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
  const expected: Array<Record<string, unknown>> = [];
  (command.examples ?? []).forEach((example, index) => {
    if (example.bound === null || example.bindingError !== null) return;
    const entries = Object.entries(example.bound);
    if (entries.some(([name, bound]) => !bound.constant || COMMON.has(name.toLowerCase()))) return;
    if (ignored.some((d) => d.message.startsWith(`Example ${index + 1} of`))) return;
    expected.push(
      Object.fromEntries(
        entries.map(([name, bound]) => [name, coerce(bound.value, properties[name])]),
      ),
    );
  });
  const actual = (ours.tool.inputExamples ?? []).map((example) => example.arguments);
  return canonical(actual) === canonical(expected)
    ? []
    : [
        `${label}: input examples ${canonical(actual)} differ from PowerShell's bindings ${canonical(expected)}`,
      ];
}
