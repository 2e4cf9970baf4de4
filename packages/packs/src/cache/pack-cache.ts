import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkIntegrity, integrityToFileName } from '../integrity/integrity.ts';

/**
 * The content-addressed tarball cache shared by every project of a user:
 * `<root>/packs/sha512-<hex>.tgz`, where root is `TOOLPACK_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/toolpack`, else `~/.cache/toolpack` (`%LOCALAPPDATA%\toolpack\cache` on Windows).
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLPACK_CACHE_DIR) return path.resolve(env.TOOLPACK_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'toolpack');
  if (process.platform === 'win32' && env.LOCALAPPDATA)
    return path.join(env.LOCALAPPDATA, 'toolpack', 'cache');
  return path.join(os.homedir(), '.cache', 'toolpack');
}

export interface PackCache {
  readonly dir: string;
  /** The tarball with this integrity, checked again on read; undefined when absent or damaged. */
  read(integrity: string): Promise<Buffer | undefined>;
  /** Stores a tarball whose integrity the caller has verified. Failures are ignored: a cache is optional. */
  write(integrity: string, bytes: Uint8Array): Promise<void>;
}

export function createPackCache(
  options: { dir?: string; env?: NodeJS.ProcessEnv } = {},
): PackCache {
  const dir = path.join(options.dir ?? defaultCacheDir(options.env), 'packs');
  const fileOf = (integrity: string) => {
    const name = integrityToFileName(integrity);
    return name === undefined ? undefined : path.join(dir, name);
  };
  return {
    dir,
    async read(integrity) {
      const file = fileOf(integrity);
      if (file === undefined) return undefined;
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch {
        return undefined;
      }
      if (checkIntegrity(bytes, integrity)) return bytes;
      await rm(file, { force: true }).catch(() => undefined);
      return undefined;
    },
    async write(integrity, bytes) {
      const file = fileOf(integrity);
      if (file === undefined) return;
      try {
        await mkdir(dir, { recursive: true });
        // Written aside then renamed: a reader never sees half a tarball.
        const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
        await writeFile(temporary, bytes);
        await rename(temporary, file);
      } catch {
        // A read-only or full cache only costs a download next time.
      }
    },
  };
}
