import { findListedJson } from '../served-tools.ts';

/**
 * The line for a tools/list answer in the 2025 wire shape whose list is the one the server
 * serialized at reload time, or undefined for any other message (which the SDK serializes).
 * Any other message costs one property read and a WeakMap lookup: nothing is serialized or
 * copied to tell.
 */
export function findToolsListLine(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null) return undefined;
  const listedJson = findListedJson((result as { tools?: unknown }).tools);
  if (listedJson === undefined || Object.keys(result).length !== 1) return undefined;
  const { id, jsonrpc, ...rest } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0' || Object.keys(rest).length !== 1) return undefined;
  if (typeof id !== 'number' && typeof id !== 'string') return undefined;
  return `{"result":{"tools":${listedJson}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
}
