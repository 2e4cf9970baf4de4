import { z } from 'zod';
import { PARAMETER_TYPES } from '@toolpack/core';

const STEP_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** One value of an input as a workflow file declares it (a parameter, or its items). */
export interface ValueShape {
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
export const inputTypeSchema = z.enum(PARAMETER_TYPES);
export const inputObjectSchema = z.strictObject({
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
export const workflowSchema = z.strictObject({
  name: z.string().trim().min(1).optional(),
  title: z.string().optional(),
  description: z.string().trim().min(1, 'say what the workflow does'),
  enabled: z.boolean().optional(),
  // Each input is checked on its own (below) so one bad input does not hide the others.
  input: z.record(z.string(), z.unknown()).nullish(),
  steps: z.array(stepSchema).min(1, 'a workflow needs at least one step'),
  output: z.unknown().optional(),
  // Checked on its own (checkObjectSchema) so each problem is reported at its line.
  outputSchema: z.unknown().optional(),
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
  longRunning: z.boolean().optional(),
});

/** The keys a mapping at `segments` may have, for "did you mean" hints. */
export function allowedKeysAt(segments: readonly (string | number)[]): string[] {
  const [first] = segments;
  if (segments.length === 0) return Object.keys(workflowSchema.shape);
  if (first === 'steps' && segments.length === 2) return Object.keys(stepSchema.shape);
  if (first === 'input') return Object.keys(inputObjectSchema.shape);
  if (first === 'annotations')
    return ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
  return [];
}

export function hintFor(segments: readonly (string | number)[]): string {
  const [first] = segments;
  if (first === 'steps')
    return 'Each step is a mapping with id:, tool: and, if it takes arguments, with:.';
  if (first === 'input')
    return 'Each input is a type (string) or a mapping with type:, description: and optional required:, default:, enum:.';
  if (first === 'description')
    return 'Add description: with one sentence saying what the workflow does.';
  return 'A workflow has description:, steps: and optionally name:, input:, output:, enabled:.';
}

/** A workflow file that passed `workflowSchema`. */
export type WorkflowFile = z.infer<typeof workflowSchema>;
