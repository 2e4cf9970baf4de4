import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolpackError } from '@toolpack/core';
import type { PackLimits } from '../tarball/limits.ts';
import { createFolderRegistry, downloadFolderTarball } from './folder-registry.ts';
import { createHttpRegistry, downloadHttpTarball } from './http-registry.ts';
import type { DescribePackTools, DownloadOptions, RegistryClient } from './registry-client.ts';

/** Where `mcp pack` looks when nothing says otherwise (a registry on this machine). */
export const DEFAULT_REGISTRY = 'http://127.0.0.1:4873';

export interface RegistryLocation {
  /** A URL (`http://...`) or an absolute folder path. */
  location: string;
  origin: 'flag' | 'env' | 'manifest' | 'default';
}

/**
 * `--registry`, else `TOOLPACK_REGISTRY`, else `registry:` in toolpack.yaml, else
 * DEFAULT_REGISTRY. A folder is resolved from where it was given: the flag and the
 * variable from the working directory, the manifest's from the project.
 */
export function resolveRegistryLocation(options: {
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  manifestRegistry?: string | undefined;
  cwd: string;
  projectDir?: string;
}): RegistryLocation {
  const normalize = (value: string, base: string) =>
    isHttpUrl(value)
      ? value
      : value.startsWith('file://')
        ? fileURLToPath(value)
        : path.resolve(base, value.replace(/^file:/, ''));
  if (options.flag !== undefined && options.flag !== '')
    return { location: normalize(options.flag, options.cwd), origin: 'flag' };
  const fromEnv = options.env?.TOOLPACK_REGISTRY;
  if (fromEnv !== undefined && fromEnv !== '')
    return { location: normalize(fromEnv, options.cwd), origin: 'env' };
  if (options.manifestRegistry !== undefined)
    return {
      location: normalize(options.manifestRegistry, options.projectDir ?? options.cwd),
      origin: 'manifest',
    };
  return { location: DEFAULT_REGISTRY, origin: 'default' };
}

export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

export interface OpenRegistryOptions {
  /** From `resolveRegistryLocation`: a URL or an absolute folder. */
  location: string;
  describeTools?: DescribePackTools;
  fetch?: typeof fetch;
  limits?: Partial<PackLimits>;
  /** Origins an HTTP registry's tarballs may come from besides its own. */
  tarballOrigins?: readonly string[];
}

/** An HTTP client for a URL, a folder registry for a folder (which must exist). */
export function openRegistry(options: OpenRegistryOptions): RegistryClient {
  if (isHttpUrl(options.location)) {
    return createHttpRegistry({
      url: options.location,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.tarballOrigins ? { tarballOrigins: options.tarballOrigins } : {}),
    });
  }
  const isDir = (() => {
    try {
      return statSync(options.location).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!isDir) {
    throw new ToolpackError(
      'E_USAGE',
      `The registry ${options.location} is neither an http(s) URL nor a folder.`,
      {
        hint: 'Pass --registry http://host:port, or the path of a folder of packs that exists (each pack a subfolder with its toolpack.yaml; a Toolpack clone has one in registry/packs).',
      },
    );
  }
  return createFolderRegistry({
    dir: options.location,
    ...(options.describeTools ? { describeTools: options.describeTools } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
}

/**
 * Fetches what a lockfile's `resolved` names, without asking a registry: an http(s) URL, or
 * `file:` a pack folder (relative to `projectDir`) packed again, or `file:` a .nupkg.
 */
export async function downloadResolved(
  resolved: string,
  options: DownloadOptions & { projectDir: string; fetch?: typeof fetch },
): Promise<Buffer> {
  if (isHttpUrl(resolved)) {
    return downloadHttpTarball(resolved, {
      ...options,
      ...(options.fetch
        ? { fetch: (url: string, init: RequestInit) => options.fetch!(url, init) }
        : {}),
    });
  }
  if (/^file:.*\.nupkg$/i.test(resolved)) {
    // A module from a folder feed: the package itself, checked against its integrity.
    const bytes = await readFile(path.resolve(options.projectDir, resolved.slice('file:'.length)));
    options.onProgress?.(bytes.length, bytes.length);
    return bytes;
  }
  if (resolved.startsWith('file:')) {
    const bytes = await downloadFolderTarball(resolved, options.projectDir, options.limits);
    options.onProgress?.(bytes.length, bytes.length);
    return bytes;
  }
  throw new ToolpackError(
    'E_LOCKFILE',
    `Cannot download ${JSON.stringify(resolved)}: it is neither an http(s) URL nor a file: folder.`,
    {
      hint: 'Run mcp pack update to resolve the pack again.',
    },
  );
}
