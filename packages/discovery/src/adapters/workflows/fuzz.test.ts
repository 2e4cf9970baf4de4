import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdits, readFixtureFiles, textEdits } from '../../testing/fuzz-mutations.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';
import type { DiscoveredTool } from '@toolpack/core';
import { checkWorkflowSteps } from './check-workflow-steps.ts';
import { describeWorkflow } from './describe-workflow.ts';
import { scanReferences } from './workflow-references.ts';
import { expectOnlyDiagnostics } from '../../testing/expect-only-diagnostics.ts';

const GOOD = join(import.meta.dirname, 'fixtures', 'good');
const fixtures = readFixtureFiles(GOOD);

const edits = textEdits([
  ':',
  '-',
  ' ',
  '\n',
  '"',
  '{',
  '}',
  '$',
  '[',
  ']',
  '.',
  'a',
  '1',
  '&',
  '*',
]);

const reference = fc
  .tuple(
    fc.constantFrom('${', '$${', '${ '),
    fc.constantFrom('input', 'steps', 'env', ''),
    fc.array(fc.constantFrom('.a', '.fetch', '.result', '[0]', '["k"]', '..', '[', '.'), {
      maxLength: 4,
    }),
    fc.constantFrom('}', ' }', ''),
  )
  .map((parts) => parts.flat().join(''));
const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    reference,
    fc.string({ maxLength: 6 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const workflowObject = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
    description: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
    enabled: fc.oneof(fc.boolean(), fc.string({ maxLength: 3 })),
    input: fc.dictionary(
      fc.string({ maxLength: 5 }),
      fc.oneof(
        fc.constantFrom('string', 'integer', 'strin'),
        fc.record(
          {
            type: fc.constantFrom('string', 'array', 'x'),
            default: anyValue,
            enum: fc.array(anyValue, { maxLength: 2 }),
            required: anyValue,
          },
          { requiredKeys: [] },
        ),
      ),
      { maxKeys: 3 },
    ),
    steps: fc.array(
      fc.record(
        {
          id: fc.constantFrom('a', 'b', 'fetch', '1x', ''),
          tool: fc.oneof(fc.string({ maxLength: 5 }), fc.integer()),
          with: anyValue,
        },
        { requiredKeys: [] },
      ),
      { maxLength: 4 },
    ),
    output: anyValue,
    timeout: anyValue,
  },
  { requiredKeys: [] },
);

describe('workflows under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('turns random text into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (content) => {
        expectOnlyDiagnostics(describeWorkflow({ path: '/w/flow.yaml', content }));
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('turns workflows of any shape into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(workflowObject, (object) => {
        expectOnlyDiagnostics(
          describeWorkflow({ path: '/w/flow.yaml', content: JSON.stringify(object) }),
        );
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('turns mutations of the good workflows into diagnostics, never an exception', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), edits, ({ file, content }, changes) => {
        expectOnlyDiagnostics(
          describeWorkflow({ path: join(GOOD, file), content: applyEdits(content, changes) }),
        );
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('scans any text for references without throwing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(reference, fc.string({ maxLength: 5 })), { maxLength: 6 }),
        (parts) => {
          const scan = scanReferences(parts.join(''));
          expect(typeof scan.ok).toBe('boolean');
        },
      ),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('checks any graph of workflows without throwing', () => {
    const graph = fc.array(fc.array(fc.nat({ max: 9 }), { maxLength: 4 }), {
      minLength: 1,
      maxLength: 10,
    });
    fc.assert(
      fc.property(graph, fc.array(fc.nat({ max: 12 }), { maxLength: 5 }), (calls, known) => {
        const tools: DiscoveredTool[] = calls.map((targets, i) => ({
          name: `workflow_${i}`,
          description: 'x',
          inputSchema: { type: 'object' },
          source: { kind: 'workflow', path: `/w/${i}.yaml` },
          invocation: {
            runner: 'workflow',
            workflow: {
              name: `${i}`,
              description: 'x',
              enabled: true,
              path: `/w/${i}.yaml`,
              steps: targets.map((t, s) => ({
                id: `s${s}`,
                tool: `workflow_${t}`,
                with: {},
                line: s + 2,
              })),
            },
          },
          originalName: `${i}`,
        }));
        const diagnostics = checkWorkflowSteps(tools, new Set(known.map((k) => `workflow_${k}`)));
        for (const d of diagnostics)
          expect(['E_WORKFLOW_UNKNOWN_TOOL', 'E_WORKFLOW_CYCLE']).toContain(d.code);
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });
});
