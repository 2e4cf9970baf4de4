export { describeHeaderScript } from './describe-header-script.ts';
