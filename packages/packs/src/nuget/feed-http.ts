import { ToolpackError } from '@toolpack/core';
import { MAX_REDIRECTS, fetchWithinOrigins } from '../registry/fetch-within-origins.ts';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  downloadHttpTarball,
  readCappedText,
} from '../registry/http-registry.ts';
import type { DownloadOptions } from '../registry/registry-client.ts';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A private feed's login: sent as HTTP Basic, and only to the feed's own origin. */
export interface FeedCredentials {
  username: string;
  password: string;
}

export interface FeedHttp {
  /**
   * The feed's answer as text; undefined for a 404. Only from the feed's own origin, or from
   * `origins` (a v3 feed's service index may place a resource on another host).
   */
  getText(url: string, origins?: ReadonlySet<string>): Promise<string | undefined>;
  /** A package's bytes, capped like a tarball, from the feed's origin or an https redirect. */
  download(url: string, options?: DownloadOptions): Promise<Buffer>;
}

/**
 * HTTP for one NuGet feed: answers only from the feed's own origin (a redirect elsewhere is
 * refused before anything is read), packages from its origin or where it redirects them over
 * https, answers cut off at 8 MiB, every failure a ToolpackError naming the feed, and the
 * credentials never sent to another host.
 */
export function createFeedHttp(options: {
  /** The feed's URL, for its origin and messages. */
  feed: string;
  credentials?: FeedCredentials;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): FeedHttp {
  const origin = new URL(options.feed).origin;
  const origins: ReadonlySet<string> = new Set([origin]);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;
  const authorization =
    options.credentials === undefined
      ? undefined
      : `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`;
  const send = async (url: string, init: RequestInit): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (authorization !== undefined && new URL(url).origin === origin)
      headers.set('authorization', authorization);
    try {
      return await doFetch(url, { ...init, headers });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000} s`
          : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new ToolpackError('E_FEED', `Cannot reach the NuGet feed ${options.feed}: ${reason}.`, {
        hint: 'Check the feed URL (--source, or feeds: in toolpack.yaml).',
        cause: error,
      });
    }
  };
  /**
   * A package may be redirected to another host: the PowerShell Gallery and Azure Artifacts
   * keep packages on a CDN or blob store. Its bytes are checked against their hash all the
   * same, and the feed's login stays with the feed (`send` adds it for the feed's origin only).
   * An https feed's packages stay on https.
   */
  const followPackageRedirects = async (url: string, init: RequestInit): Promise<Response> => {
    let current = url;
    for (let hops = 0; ; hops++) {
      const response = await send(current, { ...init, redirect: 'manual' });
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      const next = new URL(location, current);
      // From an https feed only to https; never to another scheme (file:, data:).
      const downgrade =
        next.protocol !== 'https:' &&
        (next.protocol !== 'http:' || new URL(options.feed).protocol === 'https:');
      if (hops + 1 > MAX_REDIRECTS || downgrade) {
        throw new ToolpackError(
          'E_FEED',
          `The NuGet feed ${options.feed} redirects the package ${url.slice(0, 120)} to ${next.href.slice(0, 120)}${hops + 1 > MAX_REDIRECTS ? `, after ${MAX_REDIRECTS} redirects` : ', which is not https'}; nothing was downloaded.`,
          { hint: 'The feed is misconfigured or hostile; tell its owner.' },
        );
      }
      current = next.href;
    }
  };
  return {
    async getText(url, allowed = origins) {
      if (!allowed.has(new URL(url).origin)) {
        throw new ToolpackError(
          'E_FEED',
          `The NuGet feed ${options.feed} points at ${url.slice(0, 120)}, which is not on ${[...allowed].join(' or ')}; nothing was read from there.`,
          {
            hint: "A feed's answers come from its own host, or from those its service index names; tell its owner.",
          },
        );
      }
      const response = await fetchWithinOrigins(
        url,
        { signal: AbortSignal.timeout(timeoutMs) },
        {
          allowedOrigins: allowed,
          fetch: send,
          what: `The answer of the NuGet feed ${options.feed}`,
        },
      );
      if (response.status === 404) {
        await response.body?.cancel().catch(() => undefined);
        return undefined;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new ToolpackError(
          'E_FEED',
          `The NuGet feed ${options.feed} answered ${response.status} ${response.statusText} for ${url}.`,
          {
            hint:
              response.status === 401 || response.status === 403
                ? 'A private feed needs its credentials: name it under feeds: in toolpack.yaml with usernameEnv:/passwordEnv:, and set those variables.'
                : 'Check the feed URL, or try again later.',
          },
        );
      }
      return readCappedText(response, {
        maxBytes: DEFAULT_MAX_RESPONSE_BYTES,
        what: `The answer of the NuGet feed ${options.feed}`,
        timeoutMs,
      });
    },
    download(url, downloadOptions = {}) {
      return downloadHttpTarball(url, {
        ...downloadOptions,
        allowedOrigins: origins,
        fetch: (hop, init) =>
          followPackageRedirects(hop, { ...init, signal: AbortSignal.timeout(timeoutMs * 10) }),
      });
    },
  };
}
