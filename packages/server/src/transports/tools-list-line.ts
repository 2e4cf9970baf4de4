import { findListedJson } from '../served-tools.ts';

/**
 * The line for a tools/list answer in the 2025 wire shape whose list is the one the server
 * serialized at reload time, or undefined for any other message (which the SDK serializes).
 * It only reads the message's top-level keys: nothing is serialized to tell.
 */
export function findToolsListLine(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, jsonrpc, result, ...rest } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof result !== 'object' || result === null) return undefined;
  if (typeof id !== 'number' && typeof id !== 'string') return undefined;
  const { tools, ...others } = result as Record<string, unknown>;
  const listedJson = findListedJson(tools);
  if (listedJson === undefined || Object.keys(others).length > 0 || Object.keys(rest).length > 0)
    return undefined;
  return `{"result":{"tools":${listedJson}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
}
