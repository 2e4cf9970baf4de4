export { describeWorkflow } from './describe-workflow.ts';
export type { DescribeWorkflowInput } from './describe-workflow.ts';
export { checkWorkflowSteps } from './check-workflow-steps.ts';
export { WORKFLOW_PARSER, discoverWorkflows } from './discover-workflows.ts';
export type { DiscoverWorkflowsOptions } from './discover-workflows.ts';
export { parseReference, scanReferences } from './workflow-references.ts';
export type { ReferenceScan, WorkflowReference } from './workflow-references.ts';
