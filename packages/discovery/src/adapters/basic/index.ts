export { describeBasicScript, readBasicStatements } from './describe-basic-script.ts';
export type { DescribeBasicScriptInput } from './describe-basic-script.ts';
