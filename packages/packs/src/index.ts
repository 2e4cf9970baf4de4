export {
  defaultAlias,
  isValidPackName,
  parsePackSpecifier,
  toFileStem,
  toServedToolName,
} from './names/pack-names.ts';
export type { PackDependency, PackSpecifier } from './names/pack-names.ts';
export {
  DEFAULT_SERVER_NAMESPACE,
  isValidServerNamespace,
  toPackName,
  toServerName,
} from './server-json/server-names.ts';
export type { ServerNameOptions } from './server-json/server-names.ts';
export { SERVER_JSON_SCHEMA_URL, toServerJson } from './server-json/server-json.ts';
export type { ServerJson, ServerJsonOptions } from './server-json/server-json.ts';

export type {
  EnvRequirement,
  FeedSpec,
  Manifest,
  PackManifest,
} from './manifest/manifest-schema.ts';
export { MANIFEST_FILE, parseManifest, readManifest } from './manifest/parse-manifest.ts';
export { addManifestSource } from './manifest/edit-manifest.ts';
export type { ManifestSourceEntry } from './manifest/edit-manifest.ts';
export type {
  ManifestResult,
  ParseManifestOptions,
  ReadManifestResult,
} from './manifest/parse-manifest.ts';

export { computeIntegrity } from './integrity/integrity.ts';
export { hashToolDefinition } from './pins/tool-hash.ts';
export {
  areInterpretersEqual,
  describeInterpreters,
  findInterpreterWidening,
  normalizeInterpreters,
} from './interpreters/pack-interpreters.ts';
export type { InterpreterMap } from './interpreters/pack-interpreters.ts';
export type { ToolDefinition } from './pins/tool-hash.ts';

export { DEFAULT_PACK_LIMITS, formatBytes } from './tarball/limits.ts';
export type { PackLimits } from './tarball/limits.ts';
export { createPackTarball } from './tarball/create-tarball.ts';
export type { CreatePackOptions, PackTarball } from './tarball/create-tarball.ts';
export { inspectTarball } from './tarball/read-tarball.ts';
export type {
  InspectTarballOptions,
  TarballFile,
  TarballInspection,
} from './tarball/read-tarball.ts';

export { selectVersion, sortVersionsDescending } from './resolve/resolve-version.ts';

export { createPackCache } from './cache/pack-cache.ts';
export type { PackCache } from './cache/pack-cache.ts';
export { fetchServedPack } from './serve-pack/fetch-served-pack.ts';
export type { FetchServedPackOptions, ServedPack } from './serve-pack/fetch-served-pack.ts';

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
export { MAX_SEARCH_LIMIT } from './registry/search-packs.ts';
export { buildVersionDoc } from './registry/version-doc.ts';
export type { BuildVersionDocInput } from './registry/version-doc.ts';
export { createHttpRegistry } from './registry/http-registry.ts';
export type {
  HttpRegistryClient,
  HttpRegistryOptions,
  PublishOptions,
} from './registry/http-registry.ts';
export { isHttpUrl, openRegistry, resolveRegistryLocation } from './registry/open-registry.ts';
export type { OpenRegistryOptions, RegistryLocation } from './registry/open-registry.ts';
export { openNuGetFeed } from './nuget/nuget-feed.ts';
export type { NuGetFeedClient, NuGetFeedOptions } from './nuget/nuget-feed.ts';
export type { FeedCredentials } from './nuget/feed-http.ts';
export { inspectNupkg, readNupkgContent } from './nuget/read-nupkg.ts';
export type { NupkgContent, NupkgContentResult } from './nuget/read-nupkg.ts';
export { parseNuspec } from './nuget/parse-nuspec.ts';
export type { Nuspec, NuspecDependency } from './nuget/parse-nuspec.ts';
export { readNupkgAsPack } from './nuget/nupkg-to-pack.ts';
export { resolveFeed } from './nuget/resolve-feed.ts';
export type { ResolvedFeed } from './nuget/resolve-feed.ts';
export type { OpenSource } from './project/locked-source.ts';
export {
  toNuGetIdFromPackName,
  toPackNameFromNuGetId,
  toSemverFromNuGetVersion,
} from './nuget/nuget-names.ts';

export { readLockfile } from './lock/lockfile.ts';
export type { LockEntry, Lockfile } from './lock/lockfile.ts';
export { packInstallDir } from './project/project-files.ts';
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
export { addProjectSource } from './project/add-project-source.ts';
export { auditPacks } from './project/audit-packs.ts';
export type { PackAudit } from './project/audit-packs.ts';
export type { LoadProjectResult, Project } from './project/load-project.ts';
export { readPolicyFile } from './project/read-policy-file.ts';
export type { LoadedPolicy } from './project/read-policy-file.ts';
export type { CheckStagedPacks, StagedPackInfo, StagedToolCheck } from './project/staged-tools.ts';
export type { ApprovalRequest, ApprovePack, ToolChanges } from './project/review-pack.ts';
export type { InstalledPack, ProjectPack, ProjectPackStatus } from './project/project-packs.ts';
