import { ToolpackError } from '@toolpack/core';
import { isValidPackName } from '../names/pack-names.ts';

/**
 * The reverse-DNS namespace a registry publishes its packs under when it names none of its own
 * (`jira` is served as `dev.toolpack/jira`).
 */
export const DEFAULT_SERVER_NAMESPACE = 'dev.toolpack';

/**
 * Dot-separated labels of lowercase letters, digits and inner hyphens, at least two of them
 * (`dev.toolpack`, `com.example.packs`). Lowercase, like pack names, so a mapped name is
 * spelled one way only.
 */
const NAMESPACE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/**
 * server.json allows 200 characters in a name; the longest pack name (`<64>/<64>`) becomes
 * `<namespace>.<64>/<64>`, 130 characters plus the namespace.
 */
export const MAX_SERVER_NAMESPACE_LENGTH = 70;

export interface ServerNameOptions {
  /** Default `DEFAULT_SERVER_NAMESPACE`. */
  namespace?: string;
}

/** Whether `namespace` can prefix server names (see `NAMESPACE`). */
export function isValidServerNamespace(namespace: string): boolean {
  return namespace.length <= MAX_SERVER_NAMESPACE_LENGTH && NAMESPACE.test(namespace);
}

/**
 * The official MCP Registry name of a pack: `jira` -> `<namespace>/jira`, `acme/jira` ->
 * `<namespace>.acme/jira`. A pack name segment has no dot, so the scope is always the last
 * label of the namespace part and the mapping reads back with `toPackName`.
 */
export function toServerName(packName: string, options: ServerNameOptions = {}): string {
  const namespace = readNamespace(options);
  if (!isValidPackName(packName)) {
    throw new ToolpackError('E_USAGE', `"${packName}" is not a valid pack name.`, {
      hint: 'Pack names are lowercase letters, digits and hyphens, optionally owner/name.',
    });
  }
  const slash = packName.indexOf('/');
  return slash === -1
    ? `${namespace}/${packName}`
    : `${namespace}.${packName.slice(0, slash)}/${packName.slice(slash + 1)}`;
}

/**
 * The pack a server name stands for, or undefined when the name is not one `toServerName`
 * gives for this namespace (another publisher's server, another spelling, a malformed name).
 */
export function toPackName(
  serverName: string,
  options: ServerNameOptions = {},
): string | undefined {
  const namespace = readNamespace(options);
  const slash = serverName.indexOf('/');
  if (slash === -1) return undefined;
  const prefix = serverName.slice(0, slash);
  const name = serverName.slice(slash + 1);
  // Exactly one slash, as in the schema: the rest must be a single pack-name segment.
  if (name.includes('/')) return undefined;
  let packName: string | undefined;
  if (prefix === namespace) packName = name;
  else if (prefix.startsWith(`${namespace}.`))
    packName = `${prefix.slice(namespace.length + 1)}/${name}`;
  return packName !== undefined && isValidPackName(packName) ? packName : undefined;
}

function readNamespace(options: ServerNameOptions): string {
  const namespace = options.namespace ?? DEFAULT_SERVER_NAMESPACE;
  if (!isValidServerNamespace(namespace)) {
    throw new ToolpackError(
      'E_USAGE',
      `"${namespace}" is not a server namespace: use a reverse-DNS name such as dev.toolpack or com.example.packs.`,
      {
        hint: `Lowercase labels of letters, digits and inner hyphens joined by dots, at least two, at most ${MAX_SERVER_NAMESPACE_LENGTH} characters.`,
      },
    );
  }
  return namespace;
}
