import type {
  PackDist,
  PackDoc,
  PackToolSummary,
  SearchQuery,
  SearchResponse,
  VersionDoc,
} from './registry-types.ts';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import type { PackLimits } from '../tarball/limits.ts';

/** Download progress: bytes so far and the total when the server said it. */
export type ProgressListener = (received: number, total: number | undefined) => void;

export interface DownloadOptions {
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  limits?: Partial<PackLimits>;
}

/**
 * What `mcp pack` needs of a registry; an HTTP registry, a folder of packs and a NuGet feed
 * (`openNuGetFeed`) all provide it.
 */
export interface RegistryClient {
  readonly kind: 'http' | 'folder' | 'nuget';
  /** The base URL or the folder's absolute path, for messages. */
  readonly location: string;
  search(query: SearchQuery): Promise<SearchResponse>;
  /** Throws `E_PACK_NOT_FOUND` for an unknown name. */
  getPack(name: string): Promise<PackDoc>;
  /**
   * A version's full document. `getPack`'s listing of a version may leave `dist.integrity`
   * empty (a NuGet feed that does not state hashes): then this gives it.
   */
  getVersion(name: string, version: string): Promise<VersionDoc>;
  /** The tarball's bytes, unchecked: the caller verifies `dist.integrity` before unpacking. */
  download(dist: PackDist, options?: DownloadOptions): Promise<Buffer>;
}

/**
 * Lists the tools of a pack folder. Packs cannot depend on discovery (docs/architecture.md,
 * "Dependency direction"), so whoever can (the CLI, the registry app) passes this in.
 */
export type DescribePackTools = (
  packDir: string,
  manifest: PackManifest,
) => Promise<PackToolSummary[]>;
