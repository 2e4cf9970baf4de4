import { createHash } from 'node:crypto';
import type { ToolAnnotations } from '@toolpack/core';

/** What a tool's definition is, for pinning: what a client sees of it and acts on. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

const TOOL_HASH = /^sha256-[A-Za-z0-9+/]{43}=$/;

/** Whether `value` has the form `hashToolDefinition` returns. */
export function isToolHash(value: string): boolean {
  return TOOL_HASH.test(value);
}

/**
 * `sha256-<base64>` of the canonical JSON (keys sorted at every level) of the tool's name,
 * description, input schema and annotations: the same definition hashes the same whatever the
 * order its source wrote the keys in, and any change a client would see (a new parameter, a
 * reworded description the model reads, a dropped `readOnlyHint`) changes the hash.
 * Annotations absent and `{}` are one thing.
 */
export function hashToolDefinition(tool: ToolDefinition): string {
  const canonical = writeCanonicalJson({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations ?? {},
  });
  return `sha256-${createHash('sha256').update(canonical).digest('base64')}`;
}

function writeCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(writeCanonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${writeCanonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
