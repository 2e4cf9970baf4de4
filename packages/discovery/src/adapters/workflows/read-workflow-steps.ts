import { findClosestName, isPlainObject } from '@toolpack/core';
import type { ParameterSpec, WorkflowStep } from '@toolpack/core';
import type { WorkflowReport } from './report-schema-issues.ts';
import { scanReferences } from './workflow-references.ts';
import type { WorkflowFile } from './workflow-schema.ts';

export interface ReadWorkflowStepsOptions {
  parameters: readonly ParameterSpec[];
  report: WorkflowReport;
  lineOf(segments: readonly (string | number)[]): number;
}

/**
 * The workflow's steps, with every step id unique and every reference (in a step's `with:`
 * and in `output:`) naming a declared input or an earlier step; each mistake is reported.
 */
export function readWorkflowSteps(
  workflow: WorkflowFile,
  options: ReadWorkflowStepsOptions,
): WorkflowStep[] {
  const { report, lineOf } = options;
  const declaredInputs = new Set(options.parameters.map((p) => p.name));
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
  return steps;
}
