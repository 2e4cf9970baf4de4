export { describePowerShellScript } from './describe-script.ts';
export { describePowerShellModule } from './describe-module.ts';
export { resolvePowerShellModule } from './resolve-module.ts';
export { findPowerShellFunctions } from './find-functions.ts';
