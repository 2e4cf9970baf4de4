export { startTestRegistry } from './test-registry.ts';
export type { TestRegistry, TestRegistryOptions } from './test-registry.ts';
export { buildTarball, packManifestText } from './build-tarball.ts';
export type { RawTarEntry } from './build-tarball.ts';
export { buildModuleNupkg, buildZip, nuspecText } from './build-nupkg.ts';
export type { RawZipEntry } from './build-nupkg.ts';
export { startTestNuGetFeed } from './test-nuget-feed.ts';
export type { TestNuGetFeed, TestNuGetFeedOptions } from './test-nuget-feed.ts';
