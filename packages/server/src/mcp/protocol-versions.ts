import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The 2026-07-28-era revisions served: each request names one in its `_meta` envelope. The
 * SDK keeps its own list internal; this must name the revisions its per-request handling
 * speaks (today only the first modern one).
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/**
 * Every revision a client can reach this server with, newest first: the modern ones per
 * request, the 2025-era ones (and older) through `initialize`, as the SDK negotiates them.
 */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];
