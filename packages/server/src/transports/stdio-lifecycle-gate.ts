import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL_VERSIONS } from '../mcp/protocol-versions.ts';
import type { RejectedMessage } from './json-rpc-envelope.ts';

/** Requests the MCP lifecycle allows before `initialize`. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping']);

/** The protocol version a request's 2026-07-28 envelope names, if it carries one. */
function readEnvelopeVersion(message: Record<string, unknown>): string | undefined {
  const params = message.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/**
 * The rule HTTP sessions already follow, for stdio: a 2025-era client sends `initialize`
 * before anything but `ping`. Requests sent right behind it, before its answer arrived, are
 * served (clients pipeline the handshake). 2026-era requests carry their protocol version
 * in each message and have no handshake, so they pass; the SDK pins the connection to
 * whichever era speaks first but checks the version of that first request only, so every
 * later request naming a revision the connection does not speak is refused here with
 * -32022, as an HTTP request naming one is, and a later one naming none with -32602.
 */
export function createLifecycleGate(): (
  message: Record<string, unknown>,
) => RejectedMessage | undefined {
  let initializeSent = false;
  let modernSeen = false;
  return (message) => {
    if (!('id' in message) || typeof message.method !== 'string') return undefined;
    const version = readEnvelopeVersion(message);
    if (version !== undefined && !initializeSent) {
      if (MODERN_PROTOCOL_VERSIONS.includes(version)) {
        modernSeen = true;
        return undefined;
      }
      // The first request's version is the SDK's to refuse (it answers -32022 itself).
      if (!modernSeen) return undefined;
      return {
        id: message.id as string | number,
        code: -32022,
        message: `Unsupported protocol version: ${version.slice(0, 100)}. This connection speaks ${MODERN_PROTOCOL_VERSIONS.join(', ')}; send that in _meta["${PROTOCOL_VERSION_META_KEY}"] of every request.`,
        data: { supported: [...MODERN_PROTOCOL_VERSIONS], requested: version.slice(0, 100) },
      };
    }
    if (initializeSent) return undefined;
    if (modernSeen && message.method !== 'initialize') {
      // Without a version it reads as a 2025 request before initialize; what it lacks here is
      // the version every request of this connection carries.
      return {
        id: message.id as string | number,
        code: -32602,
        message: `Invalid params: this connection speaks ${MODERN_PROTOCOL_VERSIONS.join(', ')}, whose requests carry their protocol version; send it in _meta["${PROTOCOL_VERSION_META_KEY}"] with ${message.method.slice(0, 100)}.`,
      };
    }
    if (message.method === 'initialize') {
      initializeSent = true;
      return undefined;
    }
    if (BEFORE_INITIALIZE.has(message.method) || version !== undefined) return undefined;
    return {
      id: message.id as string | number,
      code: -32000,
      message: `Bad Request: send initialize first (the MCP lifecycle starts with it), then ${message.method.slice(0, 100)}.`,
    };
  };
}
