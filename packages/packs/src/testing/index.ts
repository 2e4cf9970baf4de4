export { startTestRegistry } from './test-registry.ts';
export type { TestRegistry, TestRegistryOptions } from './test-registry.ts';
export { buildTarball, packManifestText } from './build-tarball.ts';
export type { RawTarEntry } from './build-tarball.ts';
