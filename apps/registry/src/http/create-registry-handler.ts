import type { IncomingMessage, ServerResponse } from 'node:http';
import semver from 'semver';
import { ToolpackError } from '@toolpack/core';
import {
  DEFAULT_PACK_LIMITS,
  DEFAULT_SERVER_NAMESPACE,
  isValidServerNamespace,
  type PackLimits,
} from '@toolpack/packs';
import { createRateLimiter, type TokenBucketOptions } from '../auth/rate-limit.ts';
import { listPackTools, type PackToolLister } from '../publish/list-pack-tools.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { MetadataStore } from '../storage/metadata-store.ts';
import {
  handleAsset,
  handlePackPage,
  handleSearchPage,
  sendNotFoundPage,
} from '../web/gallery-routes.ts';
import {
  handleBlob,
  handleHealth,
  handlePackRoute,
  handlePublish,
  handleSearch,
  sendMethodNotAllowed,
} from './api-routes.ts';
import { handleNuget, NUGET_PREFIX } from '../nuget/nuget-routes.ts';
import { handleNugetV2, NUGET_V2_PREFIX } from '../nuget/nuget-v2-routes.ts';
import { findAdvertisedCliVersion } from './advertised-cli-version.ts';
import { discardBody, sendError } from './http-io.ts';
import { handleOfficialApi, OFFICIAL_API_PREFIX } from './official-api-routes.ts';
import { parsePackPath } from './pack-path.ts';
import type { RegistryContext } from './registry-context.ts';
import { CLOSING_RETRY_AFTER_SECONDS, type RequestDrain } from './request-drain.ts';

export interface RateLimitOptions {
  /** `GET /v0/packs` and the search page, per client address. Default 30 burst, 10/s. */
  search?: TokenBucketOptions;
  /** Publish, deprecate and yank, per token (per address without a valid one). Default 10 burst, 1 per 6 s. */
  publish?: TokenBucketOptions;
}

const CLOSING_DISCARD_BYTES = 64 * 1024;

export const DEFAULT_RATE_LIMITS: Required<RateLimitOptions> = {
  search: { capacity: 30, refillPerSecond: 10 },
  publish: { capacity: 10, refillPerSecond: 1 / 6 },
};

export interface RegistryHandlerOptions {
  store: MetadataStore;
  blobs: BlobStore;
  /** Where uploads are unpacked while their tools are read. */
  workDir: string;
  /** The registry's public base URL; read per request, so it may be set after listening. */
  publicUrl: () => string;
  /** Caps for uploads (default: the same caps `mcp pack add` enforces). */
  limits?: Partial<PackLimits>;
  /** `false` turns rate limiting off (benchmarks, a registry behind a limiting proxy). */
  rateLimits?: RateLimitOptions | false;
  /** Take the client address from `X-Forwarded-For` (only behind a proxy you run). */
  trustProxy?: boolean;
  /** Replaces discovery for listing a pack's tools at publish time. */
  listTools?: PackToolLister;
  log?: (message: string) => void;
  /**
   * Counts requests in flight for a graceful stop (`startRegistry`'s `close()`): once it
   * drains, new requests get 503 with `Retry-After`, and publishes it aborts give up cleanly.
   */
  drain?: RequestDrain;
  /** True while seed packs are still being published (`startRegistry`); default never. */
  isSeeding?: () => boolean;
  /**
   * The reverse-DNS namespace `/v0.1` names packs under (`jira` -> `<namespace>/jira`); default
   * `dev.toolpack`. Give a registry its own so its servers are told apart from another's.
   */
  serverNamespace?: string;
  /** The `@toolpack/cli` version server.json documents run; default the repository's own. */
  cliVersion?: string;
}

/**
 * The `/v0.1` server namespace and advertised CLI version, checked: E_USAGE for a namespace that
 * is not reverse-DNS or a CLI version that is not exact. `startRegistry` calls it before it opens
 * any storage, so a bad option leaves nothing open.
 */
export function resolveOfficialApiOptions(
  options: Pick<RegistryHandlerOptions, 'serverNamespace' | 'cliVersion'>,
): { namespace: string; cliVersion: string } {
  const namespace = options.serverNamespace ?? DEFAULT_SERVER_NAMESPACE;
  if (!isValidServerNamespace(namespace)) {
    throw new ToolpackError('E_USAGE', `"${namespace}" is not a server namespace.`, {
      hint: 'Use a lowercase reverse-DNS name such as com.example.packs (at most 70 characters).',
    });
  }
  const cliVersion = options.cliVersion ?? findAdvertisedCliVersion();
  if (semver.valid(cliVersion) !== cliVersion) {
    throw new ToolpackError('E_USAGE', `"${cliVersion}" is not an exact @toolpack/cli version.`, {
      hint: 'Give one such as 0.4.0: server.json documents name a version, never a range.',
    });
  }
  return { namespace, cliVersion };
}

export type RegistryRequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** The whole registry, API and gallery, as one `node:http` request handler. */
export function createRegistryHandler(options: RegistryHandlerOptions): RegistryRequestHandler {
  const limits: PackLimits = { ...DEFAULT_PACK_LIMITS, ...options.limits };
  const rateLimits =
    options.rateLimits === false ? undefined : { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
  const log = options.log ?? (() => {});
  const officialApi = resolveOfficialApiOptions(options);
  const context: RegistryContext = {
    store: options.store,
    blobs: options.blobs,
    limits,
    publish: {
      store: options.store,
      blobs: options.blobs,
      limits,
      listTools: options.listTools ?? listPackTools,
      workDir: options.workDir,
    },
    publicUrl: () => options.publicUrl().replace(/\/+$/, ''),
    searchLimiter: rateLimits === undefined ? undefined : createRateLimiter(rateLimits.search),
    publishLimiter: rateLimits === undefined ? undefined : createRateLimiter(rateLimits.publish),
    trustProxy: options.trustProxy === true,
    log,
    isSeeding: options.isSeeding ?? (() => false),
    ...(options.drain === undefined ? {} : { signal: options.drain.signal }),
    officialApi,
  };
  const { drain } = options;
  return (request, response) => {
    if (drain?.isDraining() === true) {
      // A small body is drained so the client hears the answer; a large one is cut off.
      void discardBody(request, CLOSING_DISCARD_BYTES);
      sendError(
        response,
        503,
        {
          code: 'E_REGISTRY_CLOSING',
          message: 'The registry is shutting down.',
          hint: `Retry in ${CLOSING_RETRY_AFTER_SECONDS} s, or against another instance.`,
        },
        { 'retry-after': String(CLOSING_RETRY_AFTER_SECONDS), connection: 'close' },
      );
      return;
    }
    const work = route(context, request, response).catch((error: unknown) => {
      log(`${request.method} ${request.url} failed: ${(error as Error)?.stack ?? String(error)}`);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendError(response, 500, {
        code: 'E_INTERNAL',
        message: 'The registry failed to answer; the error is in its log.',
      });
    });
    drain?.track(work, response);
  };
}

async function route(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = readUrl(request.url ?? '/');
  if (url === undefined)
    return sendError(response, 400, {
      code: 'E_BAD_URL',
      message: 'The request URL is not valid.',
    });
  const method = request.method ?? 'GET';
  const reading = method === 'GET' || method === 'HEAD';
  const { pathname } = url;

  if (pathname === '/health') {
    if (!reading) return sendMethodNotAllowed(response, 'GET, HEAD');
    return handleHealth(context, response);
  }
  if (pathname.startsWith(OFFICIAL_API_PREFIX))
    return handleOfficialApi(context, request, response, url);
  if (pathname.startsWith(NUGET_PREFIX)) return handleNuget(context, request, response, url);
  if (pathname === NUGET_V2_PREFIX || pathname.startsWith(`${NUGET_V2_PREFIX}/`))
    return handleNugetV2(context, request, response, url);
  if (pathname === '/v0/packs' || pathname === '/v0/packs/') {
    if (reading) return handleSearch(context, request, response, url);
    if (method === 'POST') return handlePublish(context, request, response);
    return sendMethodNotAllowed(response, 'GET, HEAD, POST');
  }
  if (pathname.startsWith('/v0/packs/')) {
    const packPath = parsePackPath(pathname.slice('/v0/packs/'.length));
    if (packPath === undefined)
      return sendError(response, 404, { code: 'E_NOT_FOUND', message: `Nothing at ${pathname}.` });
    return handlePackRoute(context, request, response, packPath);
  }
  const blob = /^\/v0\/blobs\/(sha512\/[0-9a-f]{128})\.tgz$/.exec(pathname);
  if (blob?.[1] !== undefined) {
    if (!reading) return sendMethodNotAllowed(response, 'GET, HEAD');
    return handleBlob(context, request, response, blob[1]);
  }
  if (pathname.startsWith('/v0/'))
    return sendError(response, 404, { code: 'E_NOT_FOUND', message: `Nothing at ${pathname}.` });

  if (!reading) return sendMethodNotAllowed(response, 'GET, HEAD');
  if (pathname === '/') return handleSearchPage(context, request, response, url);
  if (pathname.startsWith('/packs/'))
    return handlePackPage(context, response, url, pathname.slice('/packs/'.length));
  if (handleAsset(request, response, pathname)) return;
  sendNotFoundPage(response, `There is no page at ${pathname}.`);
}

function readUrl(raw: string): URL | undefined {
  try {
    // Origin-form (`/path`) is joined to a dummy origin: a leading `//` must stay a path.
    return raw.startsWith('/') ? new URL(`http://registry${raw}`) : new URL(raw);
  } catch {
    return undefined;
  }
}
