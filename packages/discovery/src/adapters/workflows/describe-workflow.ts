import {
  buildInputSchema,
  createDiagnostic,
  hasErrors,
  isPlainObject,
  isToolpackError,
  normalizeToolName,
} from '@toolpack/core';
import type {
  Diagnostic,
  DiscoveredTool,
  ObjectJsonSchema,
  ToolAnnotations,
  WorkflowSpec,
} from '@toolpack/core';
import type { SourceResult } from '../../types.ts';
import { checkObjectSchema } from '../tool-folders/check-object-schema.ts';
import { parseLocatedDocument } from '../tool-folders/yaml-document.ts';
import { readWorkflowInputs } from './read-workflow-inputs.ts';
import { readWorkflowSteps } from './read-workflow-steps.ts';
import { type WorkflowReport, reportSchemaIssues } from './report-schema-issues.ts';
import { workflowSchema } from './workflow-schema.ts';

export interface DescribeWorkflowInput {
  path: string;
  content: string;
}

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
 * longRunning: true                  # optional: calls take long (tasks, for clients that have them)
 * outputSchema:                      # optional: what the result is; a result that does not fit is an error
 *   type: object
 *   properties: { key: { type: string } }
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
  const report: WorkflowReport = (code, message, segments, hint, severity = 'error') => {
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

  const parsed = workflowSchema.safeParse(raw);
  const parameters = readWorkflowInputs(raw, report);
  if (!parsed.success) {
    reportSchemaIssues(parsed.error.issues, { prefix: [], raw, report });
    return { tools: [], diagnostics };
  }
  const workflow = parsed.data;
  const steps = readWorkflowSteps(workflow, { parameters, report, lineOf });

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
  const outputSchema =
    workflow.outputSchema === undefined
      ? undefined
      : checkObjectSchema({
          value: workflow.outputSchema,
          key: 'outputSchema',
          input: false,
          report: (severity, code, message, line, hint) =>
            diagnostics.push(createDiagnostic(severity, code, message, { path, line }, hint)),
          lineOf: (...segments) => lineOf(segments),
        });
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
  if (workflow.longRunning === true) tool.longRunning = true;
  if (outputSchema !== undefined) tool.outputSchema = outputSchema;
  return { tools: [tool], diagnostics };
}

function getBaseName(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  return file.replace(/\.ya?ml$/i, '');
}
