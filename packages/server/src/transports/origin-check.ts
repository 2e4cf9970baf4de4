import type { IncomingMessage } from 'node:http';

export interface OriginCheckOptions {
  /** Host names this server answers to (loopback names, its own, --allowed-host). */
  hostnames: readonly string[];
  /** The port the server listens on, once it does. */
  port(): number;
  /** Whole origins (`https://app.example.com`) accepted besides the server's own. */
  allowedOrigins?: readonly string[];
}

/**
 * Decides whether a request's Origin may call the server. No Origin (every non-browser
 * client) passes. A browser page passes when it was served from this server's own address
 * (an allowed host name on this port) or its origin was allowed by name. Any other port
 * of localhost is refused: it is another program (a dev server, a compromised local app)
 * that must not drive the tools of a server that, on loopback, needs no token.
 * Returns undefined when allowed, else why not.
 */
export function createOriginCheck(
  options: OriginCheckOptions,
): (req: IncomingMessage) => string | undefined {
  const hostnames = new Set(options.hostnames.map((name) => name.toLowerCase()));
  const allowed = new Set<string>();
  for (const origin of options.allowedOrigins ?? []) allowed.add(normalizeOrigin(origin) ?? origin);
  return (req) => {
    const header = req.headers.origin;
    if (header === undefined || header === '') return undefined;
    let url: URL;
    try {
      url = new URL(header);
    } catch {
      return `Invalid Origin header: ${header.slice(0, 200)}`;
    }
    if (allowed.has(url.origin)) return undefined;
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    const ownAddress =
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      hostnames.has(url.hostname.toLowerCase()) &&
      port === options.port();
    if (ownAddress) return undefined;
    return `Origin ${url.origin} may not call this server: only pages from its own address (port ${options.port()}) may. Allow that page with --allowed-origin ${url.origin}.`;
  };
}

/** `https://App.example.com:443/x` -> `https://app.example.com`; undefined when not a URL. */
export function normalizeOrigin(origin: string): string | undefined {
  try {
    const { origin: normalized } = new URL(origin);
    return normalized === 'null' ? undefined : normalized;
  } catch {
    return undefined;
  }
}
