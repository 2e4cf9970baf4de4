export { startTestRegistry } from './test-registry.ts';
export type { TestRegistry, TestRegistryOptions } from './test-registry.ts';
export { buildTarball, packManifestText } from './build-tarball.ts';
export type { RawTarEntry } from './build-tarball.ts';
export { describeScriptTools } from './describe-script-tools.ts';
export { checkScriptTools } from './check-script-tools.ts';
