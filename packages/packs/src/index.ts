export {
  defaultAlias,
  isValidAlias,
  isValidPackName,
  isValidRange,
  isValidVersion,
  parsePackSpecifier,
  readPackDependency,
  toFileStem,
  toServedToolName,
  writePackDependency,
} from './names/pack-names.ts';
export type { PackDependency, PackSpecifier } from './names/pack-names.ts';

export { MANIFEST_KEYS, manifestSchema } from './manifest/manifest-schema.ts';
export type { EnvRequirement, Manifest, PackManifest } from './manifest/manifest-schema.ts';
export {
  MANIFEST_FILE,
  findPackPathProblem,
  parseManifest,
  readManifest,
} from './manifest/parse-manifest.ts';
export type {
  ManifestResult,
  ParseManifestOptions,
  ReadManifestResult,
} from './manifest/parse-manifest.ts';
export { removeManifestPack, setManifestPack } from './manifest/edit-manifest.ts';

export {
  assertIntegrity,
  checkIntegrity,
  computeIntegrity,
  integrityToFileName,
  isValidIntegrity,
} from './integrity/integrity.ts';

export { DEFAULT_PACK_LIMITS, formatBytes } from './tarball/limits.ts';
export type { PackLimits } from './tarball/limits.ts';
export {
  ALWAYS_IGNORED,
  findIgnoreFileProblems,
  isIgnored,
  parseIgnoreFile,
} from './tarball/ignore-rules.ts';
export type { IgnoreRule } from './tarball/ignore-rules.ts';
export { IGNORE_FILE, listPackFiles } from './tarball/list-pack-files.ts';
export type { PackFile, PackFileList } from './tarball/list-pack-files.ts';
export { PACK_MTIME, createPackTarball } from './tarball/create-tarball.ts';
export type { CreatePackOptions, PackTarball } from './tarball/create-tarball.ts';
export { inspectTarball, readPackTarball } from './tarball/read-tarball.ts';
export type {
  InspectTarballOptions,
  TarballFile,
  TarballInspection,
} from './tarball/read-tarball.ts';

export {
  findLatestVersion,
  selectVersion,
  sortVersionsDescending,
} from './resolve/resolve-version.ts';

export {
  LOCKFILE_VERSION,
  LOCK_FILE,
  createEmptyLockfile,
  findLockDrift,
  parseLockfile,
  readLockfile,
  serializeLockfile,
} from './lock/lockfile.ts';
export type { LockDrift, LockEntry, Lockfile, ReadLockfileResult } from './lock/lockfile.ts';

export { createPackCache, defaultCacheDir } from './cache/pack-cache.ts';
export type { PackCache } from './cache/pack-cache.ts';

export type {
  PackDist,
  PackDoc,
  PackSummary,
  PackToolSummary,
  SearchQuery,
  SearchResponse,
  VersionDoc,
} from './registry/registry-types.ts';
export type {
  DescribePackTools,
  DownloadOptions,
  ProgressListener,
  RegistryClient,
} from './registry/registry-client.ts';
export { RegistryError } from './registry/registry-error.ts';
export type { RegistryProblem } from './registry/registry-error.ts';
export { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, searchPacks } from './registry/search-packs.ts';
export type { SearchablePack } from './registry/search-packs.ts';
export { buildPackDoc, buildVersionDoc } from './registry/version-doc.ts';
export type { BuildVersionDocInput } from './registry/version-doc.ts';
export { createHttpRegistry } from './registry/http-registry.ts';
export type {
  HttpRegistryClient,
  HttpRegistryOptions,
  PublishOptions,
} from './registry/http-registry.ts';
export { createFolderRegistry } from './registry/folder-registry.ts';
export type { FolderRegistryClient, FolderRegistryOptions } from './registry/folder-registry.ts';
export {
  DEFAULT_REGISTRY,
  downloadResolved,
  isHttpUrl,
  openRegistry,
  resolveRegistryLocation,
} from './registry/open-registry.ts';
export type { OpenRegistryOptions, RegistryLocation } from './registry/open-registry.ts';

export { PACKS_DIR, packInstallDir } from './project/project-files.ts';
export { writePackFiles } from './project/stage-pack.ts';
export type { DownloadListener } from './project/stage-pack.ts';
export { addPack } from './project/add-pack.ts';
export type { AddPackOptions, InstalledPackReport } from './project/add-pack.ts';
export { removePack } from './project/remove-pack.ts';
export type { RemovePackReport } from './project/remove-pack.ts';
export { updatePacks } from './project/update-packs.ts';
export type { UpdatePacksOptions, UpdatePacksReport } from './project/update-packs.ts';
export { installPacks } from './project/install-packs.ts';
export { describeDifferences } from './project/verify-installed.ts';
export type { InstallPacksOptions, InstallPacksReport } from './project/install-packs.ts';
export { listPackSources, listProjectPacks } from './project/project-packs.ts';
export { loadProject } from './project/load-project.ts';
export type { LoadProjectResult, Project } from './project/load-project.ts';
export { parsePolicy, readPolicyFile } from './project/read-policy-file.ts';
export type { LoadedPolicy } from './project/read-policy-file.ts';
export type { CheckStagedPacks, StagedPackInfo, StagedToolCheck } from './project/staged-tools.ts';
export type { InstalledPack, ProjectPack, ProjectPackStatus } from './project/project-packs.ts';
