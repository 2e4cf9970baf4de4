/** Caps that keep a hostile or broken tarball from filling the disk or memory. */
export interface PackLimits {
  /** The compressed `.tgz` (the download). */
  maxTarballBytes: number;
  /** One file, unpacked. */
  maxFileBytes: number;
  /** All files together, unpacked. */
  maxTotalBytes: number;
  /** Files and folders. */
  maxEntries: number;
  /** Unpacked tar bytes per compressed byte: a gzip bomb reaches about 1000. */
  maxRatio: number;
}

export const DEFAULT_PACK_LIMITS: Readonly<PackLimits> = Object.freeze({
  maxTarballBytes: 25 * 1024 * 1024,
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  maxEntries: 5000,
  maxRatio: 100,
});

export function resolveLimits(limits: Partial<PackLimits> | undefined): PackLimits {
  return { ...DEFAULT_PACK_LIMITS, ...limits };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
