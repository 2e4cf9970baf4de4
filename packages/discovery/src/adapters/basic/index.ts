export { describeBasicScript } from './describe-basic-script.ts';
