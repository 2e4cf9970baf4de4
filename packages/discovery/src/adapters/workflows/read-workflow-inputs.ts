import { PARAMETER_TYPES, findParameterProblems, isPlainObject } from '@toolpack/core';
import type { ParameterSpec } from '@toolpack/core';
import { type WorkflowReport, reportSchemaIssues } from './report-schema-issues.ts';
import { type ValueShape, hintFor, inputObjectSchema, inputTypeSchema } from './workflow-schema.ts';

/**
 * The workflow's `input:` as parameters, each input checked on its own line so one bad input
 * does not hide the others; a bad input is reported and left out.
 */
export function readWorkflowInputs(raw: unknown, report: WorkflowReport): ParameterSpec[] {
  const parameters: ParameterSpec[] = [];
  const rawInputs = isPlainObject(raw) && isPlainObject(raw.input) ? raw.input : {};
  for (const [name, declared] of Object.entries(rawInputs)) {
    const segments = ['input', name];
    let spec: ParameterSpec;
    if (typeof declared === 'string') {
      const type = inputTypeSchema.safeParse(declared);
      if (!type.success) {
        report(
          'E_WORKFLOW_INPUT',
          `Input ${name} has the unknown type ${JSON.stringify(declared)}.`,
          segments,
          `Use one of ${PARAMETER_TYPES.join(', ')}.`,
        );
        continue;
      }
      spec = { name, type: type.data, required: true };
    } else if (isPlainObject(declared)) {
      const object = inputObjectSchema.safeParse(declared);
      if (!object.success) {
        reportSchemaIssues(object.error.issues, { prefix: segments, raw, report });
        continue;
      }
      spec = toParameterSpec(name, object.data);
    } else {
      report(
        'E_WORKFLOW_INPUT',
        `Input ${name} must be a type (${PARAMETER_TYPES.join(', ')}) or a mapping with type: and description:.`,
        segments,
        hintFor(segments),
      );
      continue;
    }
    for (const problem of findParameterProblems([spec])) {
      report(
        'E_WORKFLOW_INPUT',
        `Input ${name}: ${problem.replace(/^parameter "[^"]*":? ?/, '')}.`,
        segments,
        'Make the input fit its declared type.',
      );
    }
    parameters.push(spec);
  }
  return parameters;
}

function toParameterSpec(
  name: string,
  declared: ValueShape & {
    required?: boolean | undefined;
    default?: unknown;
    examples?: unknown[] | undefined;
  },
): ParameterSpec {
  const { required, default: defaultValue, examples, ...value } = declared;
  const spec: ParameterSpec = { name, ...dropUndefined(value) } as ParameterSpec;
  if (value.items !== undefined) spec.items = dropUndefined(value.items) as ParameterSpec['items'];
  if (defaultValue !== undefined) spec.default = defaultValue;
  if (examples !== undefined) spec.examples = examples;
  spec.required = required ?? defaultValue === undefined;
  return spec;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
