export { checkWorkflowSteps } from './check-workflow-steps.ts';
export { discoverWorkflows } from './discover-workflows.ts';
export { parseReference } from './workflow-references.ts';
export type { WorkflowReference } from './workflow-references.ts';
