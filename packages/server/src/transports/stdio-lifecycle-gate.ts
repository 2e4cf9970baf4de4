import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { RejectedMessage } from './json-rpc-envelope.ts';

/** Requests the MCP lifecycle allows before `initialize`. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping']);

function carriesEnvelope(message: Record<string, unknown>): boolean {
  const params = message.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  return typeof meta?.[PROTOCOL_VERSION_META_KEY] === 'string';
}

/**
 * The rule HTTP sessions already follow, for stdio: a 2025-era client sends `initialize`
 * before anything but `ping`. Requests sent right behind it, before its answer arrived, are
 * served (clients pipeline the handshake). 2026-era requests carry their protocol version
 * in each message and have no handshake, so they pass; the SDK pins the connection to
 * whichever era speaks first.
 */
export function createLifecycleGate(): (
  message: Record<string, unknown>,
) => RejectedMessage | undefined {
  let initializeSent = false;
  return (message) => {
    if (initializeSent || !('id' in message) || typeof message.method !== 'string')
      return undefined;
    if (message.method === 'initialize') {
      initializeSent = true;
      return undefined;
    }
    if (BEFORE_INITIALIZE.has(message.method) || carriesEnvelope(message)) return undefined;
    return {
      id: message.id as string | number,
      code: -32000,
      message: `Bad Request: send initialize first (the MCP lifecycle starts with it), then ${message.method.slice(0, 100)}.`,
    };
  };
}
