import { ToolpackError, formatIssuePath, isToolpackError } from '@toolpack/core';
import { formatBytes, resolveLimits } from '../tarball/limits.ts';
import { fetchWithinOrigins } from './fetch-within-origins.ts';
import { readErrorBody, RegistryError } from './registry-error.ts';
import type { DownloadOptions, RegistryClient } from './registry-client.ts';
import {
  packDocSchema,
  searchResponseSchema,
  versionDocSchema,
  type PackDist,
  type PackDoc,
  type SearchQuery,
  type SearchResponse,
  type VersionDoc,
} from './registry-types.ts';
import type { z } from 'zod';

export interface HttpRegistryOptions {
  /** The base URL (`http://127.0.0.1:4873`). */
  url: string;
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Per request, default 30 s; a tarball download gets 10 times as long. */
  timeoutMs?: number;
  /** The most bytes a JSON answer may have (default 8 MiB); a longer one is cut off. */
  maxResponseBytes?: number;
  /**
   * Origins (`https://cdn.example.com`) tarballs may come from besides the registry's own.
   * Anything else a VersionDoc names as `dist.tarball` (another host, `data:`, `file:`) is
   * refused before anything is downloaded or recorded.
   */
  tarballOrigins?: readonly string[];
}

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface PublishOptions {
  token: string;
  signal?: AbortSignal;
}

export interface HttpRegistryClient extends RegistryClient {
  readonly kind: 'http';
  /** The absolute URL of `dist.tarball`; throws `E_TARBALL_ORIGIN` for one from elsewhere. */
  resolveTarball(dist: PackDist): string;
  /** `POST /v0/packs`: the created VersionDoc, or a `RegistryError` with the server's problems. */
  publish(tarball: Uint8Array, options: PublishOptions): Promise<VersionDoc>;
}

/** A client of a registry that speaks the Registry API (docs/architecture.md) over HTTP. */
export function createHttpRegistry(options: HttpRegistryOptions): HttpRegistryClient {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const location = base.replace(/\/$/, '');
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const allowedOrigins: ReadonlySet<string> = new Set([
    new URL(base).origin,
    ...(options.tarballOrigins ?? []).map((origin) => readOrigin(origin)),
  ]);
  const resolveTarball = (dist: PackDist): string => {
    let url: URL | undefined;
    try {
      url = new URL(dist.tarball, base);
    } catch {
      url = undefined;
    }
    if (url === undefined || !/^https?:$/.test(url.protocol) || !allowedOrigins.has(url.origin)) {
      throw new ToolpackError(
        'E_TARBALL_ORIGIN',
        `The registry at ${location} names a tarball at ${JSON.stringify(dist.tarball.slice(0, 120))}, which is not on ${[...allowedOrigins].join(' or ')}; nothing was downloaded or installed.`,
        {
          hint: "Tarballs come from the registry's own origin. If this registry really keeps them elsewhere, allow that origin: TOOLPACK_TARBALL_ORIGINS=https://host[,https://other].",
        },
      );
    }
    return url.href;
  };

  const registryOrigin: ReadonlySet<string> = new Set([new URL(base).origin]);
  const send = async (url: string, init: RequestInit, timeout: number): Promise<Response> => {
    const signal = init.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(timeout)])
      : AbortSignal.timeout(timeout);
    try {
      return await doFetch(url, { ...init, signal });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${timeout / 1000} s`
          : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new ToolpackError(
        'E_REGISTRY_UNREACHABLE',
        `Cannot reach the registry at ${location}: ${reason}.`,
        {
          hint: 'Check the URL (--registry or TOOLPACK_REGISTRY), or use a folder of packs: --registry <path to the folder> (each pack a subfolder with its toolpack.yaml).',
          cause: error,
        },
      );
    }
  };
  // The registry's own answers never leave its origin, whatever its redirects say.
  const request = (url: string, init: RequestInit = {}, timeout = timeoutMs): Promise<Response> =>
    fetchWithinOrigins(url, init, {
      allowedOrigins: registryOrigin,
      fetch: (hop, hopInit) => send(hop, hopInit, timeout),
      what: `The answer of the registry at ${location}`,
    });

  const getJson = async <S extends z.ZodType>(
    path: string,
    schema: S,
    notFound: () => ToolpackError,
  ): Promise<z.output<S>> => {
    const url = new URL(path, base).href;
    // The request's timeout also stops a body that trickles in without end.
    const response = await request(url, { headers: { accept: 'application/json' } });
    const text = await readCappedText(response, {
      maxBytes: maxResponseBytes,
      what: `The answer of the registry at ${location} to GET /${path}`,
      timeoutMs,
    });
    if (response.status === 404) throw notFound();
    if (!response.ok) {
      const body = readErrorBody(text);
      throw new RegistryError(
        'E_REGISTRY',
        `The registry at ${location} answered ${response.status} to GET /${path}${body.message === undefined ? '' : `: ${body.message.replace(/\.$/, '')}`}.`,
        { status: response.status, problems: body.problems },
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ToolpackError(
        'E_REGISTRY_RESPONSE',
        `The registry at ${location} sent something other than JSON for GET /${path}.`,
        {
          hint: "Is --registry the registry's base URL (not a web page)?",
        },
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`)
        .join('; ');
      throw new ToolpackError(
        'E_REGISTRY_RESPONSE',
        `The registry at ${location} sent an invalid answer to GET /${path}: ${problems}.`,
      );
    }
    return parsed.data;
  };

  const packPath = (name: string) => `v0/packs/${encodeURIComponent(name)}`;
  const notFound = (name: string) => () =>
    new ToolpackError('E_PACK_NOT_FOUND', `No pack named ${name} in the registry at ${location}.`, {
      hint: `Search for it: mcp pack search ${name.slice(name.lastIndexOf('/') + 1)}`,
    });

  return {
    kind: 'http',
    location,
    async search(query: SearchQuery): Promise<SearchResponse> {
      const params = new URLSearchParams();
      if (query.q !== undefined && query.q.trim() !== '') params.set('q', query.q);
      for (const tag of query.tags ?? []) params.append('tag', tag);
      if (query.cursor !== undefined) params.set('cursor', query.cursor);
      if (query.limit !== undefined) params.set('limit', String(query.limit));
      const qs = params.toString();
      return getJson(
        `v0/packs${qs === '' ? '' : `?${qs}`}`,
        searchResponseSchema,
        () =>
          new ToolpackError(
            'E_REGISTRY',
            `The registry at ${location} has no /v0/packs: is it a Toolpack registry?`,
          ),
      );
    },
    async getPack(name: string): Promise<PackDoc> {
      return getJson(packPath(name), packDocSchema, notFound(name));
    },
    async getVersion(name: string, version: string): Promise<VersionDoc> {
      return getJson(
        `${packPath(name)}/versions/${encodeURIComponent(version)}`,
        versionDocSchema,
        () =>
          new ToolpackError(
            'E_PACK_NOT_FOUND',
            `${name} has no version ${version} in the registry at ${location}.`,
            {
              hint: `See its versions: mcp pack info ${name}`,
            },
          ),
      );
    },
    resolveTarball,
    async download(dist: PackDist, downloadOptions: DownloadOptions = {}): Promise<Buffer> {
      return downloadHttpTarball(resolveTarball(dist), {
        ...downloadOptions,
        allowedOrigins,
        fetch: (url, init) => send(url, init, timeoutMs * 10),
      });
    },
    async publish(tarball: Uint8Array, publishOptions: PublishOptions): Promise<VersionDoc> {
      const response = await request(
        new URL('v0/packs', base).href,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${publishOptions.token}`,
            'content-type': 'application/gzip',
            accept: 'application/json',
          },
          body: tarball,
          ...(publishOptions.signal ? { signal: publishOptions.signal } : {}),
        },
        timeoutMs * 10,
      );
      const text = await readCappedText(response, {
        maxBytes: maxResponseBytes,
        what: `The answer of the registry at ${location} to POST /v0/packs`,
        timeoutMs: timeoutMs * 10,
      });
      if (!response.ok) {
        const body = readErrorBody(text);
        const reason: Record<number, string> = {
          401: 'the token is missing or not valid',
          403: "the token may not publish this pack (another owner's name)",
          409: 'this version already exists (versions are immutable)',
          413: 'the tarball is too large',
          422: 'the pack has problems',
        };
        const hint: Record<number, string> = {
          401: 'Pass a valid token with --token or TOOLPACK_TOKEN.',
          403: 'Publish under your own owner/name, or ask the owner for a token.',
          409: 'Raise `version:` in toolpack.yaml and publish again.',
          422: 'Fix each problem listed, then publish again.',
        };
        throw new RegistryError(
          'E_PUBLISH_REJECTED',
          `The registry at ${location} refused the pack (${response.status}${reason[response.status] === undefined ? '' : `: ${reason[response.status]}`})${body.message === undefined ? '' : `: ${body.message.replace(/\.$/, '')}`}.`,
          {
            status: response.status,
            problems: body.problems,
            ...((body.hint ?? hint[response.status]) === undefined
              ? {}
              : { hint: body.hint ?? hint[response.status] }),
          },
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const parsed = versionDocSchema.safeParse(json);
      if (!parsed.success)
        throw new ToolpackError(
          'E_REGISTRY_RESPONSE',
          `The registry at ${location} accepted the pack but did not answer with its VersionDoc.`,
        );
      return parsed.data;
    },
  };
}

/**
 * Streams a tarball with progress and a size cap (the cap applies before integrity is known).
 * A redirect is followed only to `allowedOrigins` (default: the URL's own origin).
 */
export async function downloadHttpTarball(
  url: string,
  options: DownloadOptions & {
    fetch?: (url: string, init: RequestInit) => Promise<Response>;
    allowedOrigins?: ReadonlySet<string>;
  },
): Promise<Buffer> {
  const limits = resolveLimits(options.limits);
  const doFetch = options.fetch ?? ((u: string, init: RequestInit) => fetch(u, init));
  const response = await fetchWithinOrigins(url, options.signal ? { signal: options.signal } : {}, {
    allowedOrigins: options.allowedOrigins ?? new Set([new URL(url).origin]),
    fetch: doFetch,
    what: 'The tarball',
  }).catch((error: unknown) => {
    throw isToolpackError(error) ? error : bodyReadError(error, `Downloading ${url}`);
  });
  if (!response.ok) {
    throw new ToolpackError(
      'E_DOWNLOAD',
      `Downloading ${url} failed: ${response.status} ${response.statusText}.`,
      {
        hint:
          response.status === 404
            ? 'The registry lost the tarball or the lockfile is stale; try mcp pack update.'
            : 'Try again later.',
      },
    );
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const total = Number.isFinite(declared) ? declared : undefined;
  if (total !== undefined && total > limits.maxTarballBytes) {
    await response.body?.cancel();
    throw new ToolpackError(
      'E_TARBALL_TOO_LARGE',
      `${url} is ${formatBytes(total)}; the limit is ${formatBytes(limits.maxTarballBytes)}. Nothing was downloaded.`,
    );
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      throw bodyReadError(error, `Downloading ${url}`);
    });
    if (done) break;
    received += value.byteLength;
    if (received > limits.maxTarballBytes) {
      await reader.cancel();
      throw new ToolpackError(
        'E_TARBALL_TOO_LARGE',
        `${url} is larger than ${formatBytes(limits.maxTarballBytes)}; the download was stopped.`,
      );
    }
    chunks.push(Buffer.from(value));
    options.onProgress?.(received, total);
  }
  return Buffer.concat(chunks);
}

/** `https://host:port` from an origin or any URL on it; throws `E_USAGE` for anything else. */
function readOrigin(text: string): string {
  try {
    const url = new URL(text);
    if (/^https?:$/.test(url.protocol)) return url.origin;
  } catch {
    // Reported below.
  }
  throw new ToolpackError('E_USAGE', `${JSON.stringify(text)} is not an http(s) origin.`, {
    hint: 'Give tarball origins as https://host[:port], separated by commas.',
  });
}

/**
 * A response body as text, stopped at `maxBytes`: a hostile or broken registry can answer
 * without end, and `response.text()` would hold all of it in memory.
 */
export async function readCappedText(
  response: Response,
  options: { maxBytes: number; what: string; timeoutMs: number },
): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLong(options);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      throw bodyReadError(error, options.what, options.timeoutMs);
    });
    if (done) break;
    received += value.byteLength;
    if (received > options.maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLong(options);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLong(options: { maxBytes: number; what: string }): ToolpackError {
  return new ToolpackError(
    'E_REGISTRY_RESPONSE',
    `${options.what} is larger than ${formatBytes(options.maxBytes)}; it was cut off and nothing was installed.`,
    { hint: 'Is --registry a Toolpack registry? Tell its owner if it is.' },
  );
}

/** A body that stopped arriving (timeout, reset) as a ToolpackError, not a raw stack. */
function bodyReadError(error: unknown, what: string, timeoutMs?: number): ToolpackError {
  const name = (error as Error | undefined)?.name;
  const reason =
    name === 'TimeoutError' || name === 'AbortError'
      ? `it did not arrive in full${timeoutMs === undefined ? ' in time' : ` within ${timeoutMs / 1000} s`}`
      : `the connection failed (${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message})`;
  return new ToolpackError('E_REGISTRY_UNREACHABLE', `${what} failed: ${reason}.`, {
    hint: 'Try again later; if it persists, the registry is broken or hostile.',
    cause: error,
  });
}
