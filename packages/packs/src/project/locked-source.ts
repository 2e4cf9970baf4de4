import type { RegistryClient } from '../registry/registry-client.ts';

/** Opens the NuGet feed a lock entry's `source` names (the CLI resolves names with `resolveFeed`). */
export type OpenSource = (source: string) => RegistryClient;

/** The feed of a lock entry with a `source`, when the caller can open one. */
export function openLockedSource(
  source: string | undefined,
  openSource: OpenSource | undefined,
): RegistryClient | undefined {
  return source === undefined || openSource === undefined ? undefined : openSource(source);
}
