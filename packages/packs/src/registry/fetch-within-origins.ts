import { ToolpackError } from '@toolpack/core';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Same-origin hops followed before giving up (a loop, or a registry misconfigured). */
export const MAX_REDIRECTS = 5;

export interface FetchWithinOriginsOptions {
  /** Origins (`https://host:port`) a redirect may lead to; the first request's is not implied. */
  allowedOrigins: ReadonlySet<string>;
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** What is being fetched, for the message: "The tarball of jira 1.2.0", "GET /v0/packs/x". */
  what: string;
}

/**
 * fetch with redirects followed here, not by fetch: each `Location` must stay on an allowed
 * origin, or the request is refused with `E_REGISTRY_REDIRECT` before anything is read from
 * the other host. fetch's own following would go anywhere the registry points (and a
 * registry may only name tarballs on its own origin or on origins the user allowed).
 */
export async function fetchWithinOrigins(
  url: string,
  init: RequestInit,
  options: FetchWithinOriginsOptions,
): Promise<Response> {
  let current = url;
  let currentInit: RequestInit = { ...init, redirect: 'manual' };
  for (let hops = 0; ; hops++) {
    const response = await options.fetch(current, currentInit);
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    const location = response.headers.get('location');
    await response.body?.cancel().catch(() => undefined);
    if (location === null) {
      throw new ToolpackError(
        'E_REGISTRY_REDIRECT',
        `${options.what} was redirected (${response.status}) without a Location; nothing was downloaded.`,
        { hint: 'The registry is broken; tell its owner.' },
      );
    }
    let next: URL | undefined;
    try {
      next = new URL(location, current);
    } catch {
      next = undefined;
    }
    if (next === undefined || !/^https?:$/.test(next.protocol)) {
      throw redirectError(options, current, location.slice(0, 120));
    }
    if (!options.allowedOrigins.has(next.origin)) {
      throw redirectError(options, current, next.href.slice(0, 120));
    }
    if (hops + 1 > MAX_REDIRECTS) {
      throw new ToolpackError(
        'E_REGISTRY_REDIRECT',
        `${options.what} was redirected more than ${MAX_REDIRECTS} times (last to ${next.href.slice(0, 120)}); nothing was downloaded.`,
        { hint: 'The registry redirects in a loop; tell its owner.' },
      );
    }
    // 303 (and 301/302 after a POST, as browsers do) turns the request into a GET without a body.
    const toGet =
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) &&
        (currentInit.method ?? 'GET').toUpperCase() === 'POST');
    if (toGet) {
      const { body: _body, ...rest } = currentInit;
      currentInit = { ...rest, method: 'GET' };
    }
    current = next.href;
  }
}

function redirectError(
  options: FetchWithinOriginsOptions,
  from: string,
  to: string,
): ToolpackError {
  return new ToolpackError(
    'E_REGISTRY_REDIRECT',
    `${options.what} at ${from.slice(0, 120)} redirects to ${JSON.stringify(to)}, which is not on ${[...options.allowedOrigins].join(' or ')}; nothing was read from there.`,
    {
      hint: "A registry's answers and tarballs come from its own origin. If it really keeps tarballs elsewhere, allow that origin: TOOLPACK_TARBALL_ORIGINS=https://host[,https://other].",
    },
  );
}
