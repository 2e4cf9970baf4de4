import { z } from 'zod';
import {
  PARAMETER_TYPES,
  buildInputSchema,
  createDiagnostic,
  findClosestName,
  findParameterProblems,
  hasErrors,
  isToolpackError,
  normalizeToolName,
} from '@toolpack/core';
import type {
  Diagnostic,
  DiscoveredTool,
  ObjectJsonSchema,
  ParameterSpec,
  ToolAnnotations,
  WorkflowSpec,
  WorkflowStep,
} from '@toolpack/core';
import type { SourceResult } from '../../types.ts';
import { parseLocatedDocument } from '../tool-folders/yaml-document.ts';
import { scanReferences } from './workflow-references.ts';

export interface DescribeWorkflowInput {
  path: string;
  content: string;
}

const STEP_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const scalar = z.union([z.string(), z.number(), z.boolean()]);

interface ValueShape {
  type: (typeof PARAMETER_TYPES)[number];
  description?: string | undefined;
  enum?: (string | number | boolean)[] | undefined;
  format?: string | undefined;
  minimum?: number | undefined;
  maximum?: number | undefined;
  exclusiveMinimum?: number | undefined;
  exclusiveMaximum?: number | undefined;
  pattern?: string | undefined;
  minLength?: number | undefined;
  maxLength?: number | undefined;
  minItems?: number | undefined;
  maxItems?: number | undefined;
  uniqueItems?: boolean | undefined;
  items?: ValueShape | undefined;
}

const valueFields = {
  type: z.enum(PARAMETER_TYPES),
  description: z.string().optional(),
  enum: z.array(scalar).min(1).optional(),
  format: z.string().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.number().optional(),
  exclusiveMaximum: z.number().optional(),
  pattern: z.string().optional(),
  minLength: z.number().int().min(0).optional(),
  maxLength: z.number().int().min(0).optional(),
  minItems: z.number().int().min(0).optional(),
  maxItems: z.number().int().min(0).optional(),
  uniqueItems: z.boolean().optional(),
};
const valueSchema: z.ZodType<ValueShape> = z.lazy(() =>
  z.strictObject({ ...valueFields, items: valueSchema.optional() }),
);
const inputTypeSchema = z.enum(PARAMETER_TYPES);
const inputObjectSchema = z.strictObject({
  ...valueFields,
  items: valueSchema.optional(),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
  examples: z.array(z.unknown()).optional(),
});
const stepSchema = z.strictObject({
  id: z
    .string()
    .regex(STEP_ID, 'a step id starts with a letter or _ and uses letters, digits, _ and -'),
  tool: z.string().trim().min(1, 'name the tool the step calls'),
  with: z.record(z.string(), z.unknown()).nullish(),
});
const workflowSchema = z.strictObject({
  name: z.string().trim().min(1).optional(),
  title: z.string().optional(),
  description: z.string().trim().min(1, 'say what the workflow does'),
  enabled: z.boolean().optional(),
  // Each input is checked on its own (below) so one bad input does not hide the others.
  input: z.record(z.string(), z.unknown()).nullish(),
  steps: z.array(stepSchema).min(1, 'a workflow needs at least one step'),
  output: z.unknown().optional(),
  annotations: z
    .strictObject({
      title: z.string().optional(),
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional(),
  timeout: z.number().positive().optional(),
});

/**
 * Describes a declarative workflow, `workflows/<name>.yaml`, served as `workflow_<name>`:
 *
 * ```yaml
 * name: triage-issue                 # optional: the file name without .yaml
 * description: Fetches an issue and summarizes it
 * enabled: true                      # optional; false leaves the workflow out
 * input:                             # the arguments, name -> parameter (or just a type)
 *   issue_key:
 *     type: string                   # string integer number boolean array object
 *     description: The Jira key
 *     pattern: "^[A-Z]+-\\d+$"        # also enum format minimum maximum minLength ... items
 *   max_words: { type: integer, default: 100 }
 *   verbose: boolean                 # shorthand for { type: boolean }
 * steps:
 *   - id: fetch                      # unique; letters, digits, _ and -
 *     tool: jira_get_issue           # any served tool, workflows included
 *     with:                          # the step's arguments; any JSON
 *       key: ${input.issue_key}
 *   - id: summarize
 *     tool: summarize_text
 *     with:
 *       text: "Issue ${input.issue_key}: ${steps.fetch.result.description}"
 * output: ${steps.summarize.result}  # optional: the last step's result by default
 * annotations: { readOnlyHint: true }   # optional MCP hints
 * timeout: 120                       # optional: seconds for the whole workflow
 * ```
 *
 * An input is required unless it says `required: false` or declares a `default`.
 * References (`workflow-references.ts`) may name declared inputs and earlier steps only;
 * each mistake is an error with its line. Whether each step's tool exists, and that
 * workflows do not call each other in a circle, is checked later by `checkWorkflowSteps`
 * once every source is known. Pure: the same input always gives the same JSON result.
 */
export function describeWorkflow(input: DescribeWorkflowInput): SourceResult {
  const { path } = input;
  const document = parseLocatedDocument(input.content, path);
  if (document.diagnostics.length > 0) return { tools: [], diagnostics: document.diagnostics };
  const diagnostics: Diagnostic[] = [];
  const lineOf = (segments: readonly (string | number)[]): number => document.lineOf(segments) ?? 1;
  const report = (
    code: Diagnostic['code'],
    message: string,
    segments: readonly (string | number)[],
    hint?: string,
    severity: Diagnostic['severity'] = 'error',
  ): void => {
    diagnostics.push(
      createDiagnostic(severity, code, message, { path, line: lineOf(segments) }, hint),
    );
  };
  const raw = document.value;
  const baseName = getBaseName(path);

  if (isPlainObject(raw) && raw.enabled === false) {
    report(
      'I_WORKFLOW_DISABLED',
      `The workflow ${baseName} is disabled (enabled: false), so it is not served.`,
      ['enabled'],
      'Set enabled: true to serve it.',
      'info',
    );
    return { tools: [], diagnostics };
  }

  const reportIssues = (
    issues: readonly z.core.$ZodIssue[],
    prefix: readonly (string | number)[],
  ): void => {
    for (const issue of issues) {
      const segments = [
        ...prefix,
        ...issue.path.filter((s): s is string | number => typeof s !== 'symbol'),
      ];
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const meant = findClosestName(key, allowedKeysAt(segments));
          report(
            'E_WORKFLOW_SCHEMA',
            `${describePath(segments, 'The workflow')} has the unknown key ${JSON.stringify(key)}.`,
            [...segments, key],
            meant === undefined ? 'Remove it, or check its spelling.' : `Did you mean ${meant}?`,
          );
        }
        continue;
      }
      report(
        'E_WORKFLOW_SCHEMA',
        joinMessage(
          describePath(segments, 'The workflow'),
          describeIssue(issue, valueAt(raw, segments)),
        ),
        segments,
        hintFor(segments),
      );
    }
  };

  const parsed = workflowSchema.safeParse(raw);
  // Inputs -> parameters, each checked on its own line.
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
        reportIssues(object.error.issues, segments);
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
  if (!parsed.success) {
    reportIssues(parsed.error.issues, []);
    return { tools: [], diagnostics };
  }
  const workflow = parsed.data;
  const declaredInputs = new Set(parameters.map((p) => p.name));

  // Steps: unique ids, and references to inputs and earlier steps only.
  const stepIndex = new Map<string, number>();
  const steps: WorkflowStep[] = [];
  workflow.steps.forEach((step, index) => {
    const earlier = stepIndex.get(step.id);
    if (earlier !== undefined) {
      report(
        'E_WORKFLOW_STEP_ID',
        `Step id ${JSON.stringify(step.id)} is used twice (also by step ${earlier + 1}).`,
        ['steps', index, 'id'],
        'Give every step its own id.',
      );
    } else {
      stepIndex.set(step.id, index);
    }
    steps.push({
      id: step.id,
      tool: step.tool.trim(),
      with: step.with ?? {},
      line: lineOf(['steps', index]),
    });
  });
  const checkValue = (
    value: unknown,
    segments: (string | number)[],
    stepPosition: number,
  ): void => {
    if (typeof value === 'string') {
      checkReferences(value, segments, stepPosition);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => checkValue(item, [...segments, i], stepPosition));
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value))
        checkValue(item, [...segments, key], stepPosition);
    }
  };
  const checkReferences = (
    value: string,
    segments: (string | number)[],
    stepPosition: number,
  ): void => {
    const scan = scanReferences(value);
    if (!scan.ok) {
      report(
        'E_WORKFLOW_REFERENCE',
        `${scan.text} ${scan.problem}.`,
        segments,
        'Write ${input.<name>} or ${steps.<earlier step id>.result}; $${ is a literal ${.',
      );
      return;
    }
    for (const reference of scan.references) {
      if (reference.kind === 'input') {
        if (!declaredInputs.has(reference.name)) {
          const meant = findClosestName(reference.name, declaredInputs);
          report(
            'E_WORKFLOW_REFERENCE',
            `${reference.text} names the input ${JSON.stringify(reference.name)}, which the workflow does not declare${declaredInputs.size === 0 ? '' : ` (it declares ${[...declaredInputs].join(', ')})`}.`,
            segments,
            meant === undefined
              ? `Declare ${reference.name} under input:.`
              : `Did you mean \${input.${meant}}?`,
          );
        }
        continue;
      }
      const target = stepIndex.get(reference.id);
      const where =
        stepPosition === Number.POSITIVE_INFINITY
          ? 'the output'
          : `step ${JSON.stringify(workflow.steps[stepPosition]?.id)}`;
      if (target === undefined) {
        const meant = findClosestName(reference.id, stepIndex.keys());
        report(
          'E_WORKFLOW_REFERENCE',
          `${reference.text} names the step ${JSON.stringify(reference.id)}, which does not exist.`,
          segments,
          meant === undefined
            ? `Use the id of an earlier step (${[...stepIndex.keys()].join(', ')}).`
            : `Did you mean \${steps.${meant}.result}?`,
        );
      } else if (target === stepPosition) {
        report(
          'E_WORKFLOW_REFERENCE',
          `${reference.text} is ${where}'s own result, which does not exist yet.`,
          segments,
          'Refer to an earlier step only.',
        );
      } else if (target > stepPosition) {
        report(
          'E_WORKFLOW_REFERENCE',
          `${reference.text} in ${where} names step ${JSON.stringify(reference.id)}, which runs later.`,
          segments,
          'Refer to an earlier step only, or move this step after it.',
        );
      }
    }
  };
  workflow.steps.forEach((step, index) =>
    checkValue(step.with ?? {}, ['steps', index, 'with'], index),
  );
  if (workflow.output !== undefined)
    checkValue(workflow.output, ['output'], Number.POSITIVE_INFINITY);

  // Name: workflow_<name>, never prefixed twice.
  const declaredName = workflow.name ?? baseName;
  const candidate = /^workflow_/i.test(declaredName) ? declaredName : `workflow_${declaredName}`;
  let name: string | undefined;
  let renamed: Diagnostic | undefined;
  try {
    const normalized = normalizeToolName(candidate);
    name = normalized.name;
    if (normalized.changed) {
      renamed = createDiagnostic(
        'info',
        'I_RENAMED',
        `The workflow ${JSON.stringify(declaredName)} is served as ${JSON.stringify(name)} (${normalized.changes.join('; ')}).`,
        { path, line: lineOf(workflow.name === undefined ? [] : ['name']) },
        `Write name: ${name.replace(/^workflow_/, '')} to keep the name as it is.`,
      );
    }
  } catch (error) {
    if (!isToolpackError(error)) throw error;
    report('E_TOOL_NAME', error.message, ['name'], error.hint);
  }

  let schema: ObjectJsonSchema | undefined;
  if (!hasErrors(diagnostics)) {
    try {
      schema = buildInputSchema(parameters);
    } catch (error) {
      if (!isToolpackError(error)) throw error;
      report(error.code, error.message, ['input'], error.hint);
    }
  }
  if (name === undefined || schema === undefined || hasErrors(diagnostics))
    return { tools: [], diagnostics };
  if (renamed !== undefined) diagnostics.push(renamed);

  const spec: WorkflowSpec = {
    name: declaredName,
    description: workflow.description.trim(),
    enabled: true,
    path,
    steps,
  };
  if (workflow.output !== undefined) spec.output = workflow.output;
  const tool: DiscoveredTool = {
    name,
    description: spec.description,
    inputSchema: schema,
    source: { kind: 'workflow', path, line: 1 },
    invocation: { runner: 'workflow', workflow: spec },
    originalName: declaredName,
  };
  if (workflow.title !== undefined) tool.title = workflow.title;
  if (workflow.annotations !== undefined && Object.keys(workflow.annotations).length > 0) {
    tool.annotations = { ...workflow.annotations } as ToolAnnotations;
  }
  if (workflow.timeout !== undefined)
    tool.timeoutMs = Math.max(1, Math.round(workflow.timeout * 1000));
  return { tools: [tool], diagnostics };
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

function describePath(segments: readonly (string | number)[], whole: string): string {
  if (segments.length === 0) return whole;
  return segments.reduce<string>(
    (text, segment) =>
      typeof segment === 'number'
        ? `${text}[${segment}]`
        : text === ''
          ? segment
          : `${text}.${segment}`,
    '',
  );
}

const KIND_WORDS: Record<string, string> = {
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/** What is wrong, in words; `value` is what the file holds at the issue's place. */
function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_type') {
    if (value === undefined) return 'is missing';
    const expected = KIND_WORDS[issue.expected] ?? issue.expected;
    if (issue.path.length === 0 && issue.expected === 'object')
      return 'must be a mapping with description and steps';
    return `must be ${expected}, not ${describeValue(value)}`;
  }
  if (issue.code === 'invalid_value' && issue.path[issue.path.length - 1] === 'type') {
    return `is ${JSON.stringify(value)}, not one of ${PARAMETER_TYPES.join(', ')}`;
  }
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

function joinMessage(subject: string, detail: string): string {
  return /^(is|has|must) /.test(detail) ? `${subject} ${detail}.` : `${subject}: ${detail}.`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value) ?? String(value);
}

/** The keys a mapping at `segments` may have, for "did you mean" hints. */
function allowedKeysAt(segments: readonly (string | number)[]): string[] {
  const [first] = segments;
  if (segments.length === 0) return Object.keys(workflowSchema.shape);
  if (first === 'steps' && segments.length === 2) return Object.keys(stepSchema.shape);
  if (first === 'input') return Object.keys(inputObjectSchema.shape);
  if (first === 'annotations')
    return ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
  return [];
}

function hintFor(segments: readonly (string | number)[]): string {
  const [first] = segments;
  if (first === 'steps')
    return 'Each step is a mapping with id:, tool: and, if it takes arguments, with:.';
  if (first === 'input')
    return 'Each input is a type (string) or a mapping with type:, description: and optional required:, default:, enum:.';
  if (first === 'description')
    return 'Add description: with one sentence saying what the workflow does.';
  return 'A workflow has description:, steps: and optionally name:, input:, output:, enabled:.';
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let value: unknown = root;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function getBaseName(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  return file.replace(/\.ya?ml$/i, '');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
