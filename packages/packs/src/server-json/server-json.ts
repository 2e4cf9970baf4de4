import { loadSemver } from '../lazy-dependencies.ts';
import { describePermissions, ToolpackError } from '@toolpack/core';
import type { VersionDoc } from '../registry/registry-types.ts';
import { toServerName } from './server-names.ts';

/** The dated server.json schema the documents follow (vendored in ./fixtures with its source). */
export const SERVER_JSON_SCHEMA_URL =
  'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** The npm package that serves a pack (`mcp serve --pack`). */
export const TOOLPACK_CLI_PACKAGE = '@toolpack/cli';

/**
 * Where Toolpack's own facts sit in a server.json: inside the publisher-provided `_meta`
 * object (the part of `_meta` a document's author owns), under this reverse-DNS key.
 */
export const SERVER_JSON_META_KEY = 'dev.toolpack';
const PUBLISHER_PROVIDED = 'io.modelcontextprotocol.registry/publisher-provided';

/** server.json's limits on `description` and `title`. */
const MAX_DESCRIPTION_LENGTH = 100;
const MAX_TITLE_LENGTH = 100;

export interface ServerJsonOptions {
  /**
   * The registry the pack is served from, as `mcp serve --pack ... --registry` takes it: its
   * URL, or a folder of packs. A URL also gives the document its `websiteUrl` (the gallery page).
   */
  registry: string;
  /** The `@toolpack/cli` version clients run (one that has `mcp serve --pack`). */
  cliVersion: string;
  /** The reverse-DNS namespace of server names (default `DEFAULT_SERVER_NAMESPACE`). */
  namespace?: string;
}

export interface ServerJsonArgument {
  type: 'positional' | 'named';
  /** A named argument's flag. */
  name?: string;
  value: string;
}

export interface ServerJsonEnvironmentVariable {
  name: string;
  description?: string;
  isRequired: boolean;
  isSecret: boolean;
  format: 'string';
}

export interface ServerJsonPackage {
  registryType: 'npm';
  identifier: string;
  version: string;
  runtimeHint: 'npx';
  transport: { type: 'stdio' };
  packageArguments: ServerJsonArgument[];
  environmentVariables: ServerJsonEnvironmentVariable[];
}

/** Toolpack's facts about the version, for clients that know them. */
export interface ServerJsonToolpackMeta {
  pack: string;
  version: string;
  tags: string[];
  tools: string[];
  /** What the tools may touch, one line per kind, as `mcp pack info` shows it. */
  permissions?: string[];
  integrity: string;
  tarball: string;
  deprecated?: string;
  yanked?: boolean;
}

/** A server.json document (the subset of the schema this builder fills). */
export interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  title?: string;
  version: string;
  websiteUrl?: string;
  packages: ServerJsonPackage[];
  _meta: {
    [PUBLISHER_PROVIDED]: { [SERVER_JSON_META_KEY]: ServerJsonToolpackMeta };
  };
}

/**
 * The server.json of one pack version: an MCP server any client can start with
 * `npx @toolpack/cli serve --pack <name>@<version> --registry <registry>`, which downloads,
 * verifies and serves that version. Env the pack declares becomes the package's
 * `environmentVariables`. Throws E_USAGE for a CLI version that is not an exact version.
 */
export function toServerJson(doc: VersionDoc, options: ServerJsonOptions): ServerJson {
  if (loadSemver().valid(options.cliVersion) !== options.cliVersion) {
    throw new ToolpackError(
      'E_USAGE',
      `"${options.cliVersion}" is not an exact @toolpack/cli version; server.json needs one (no ranges, no "latest").`,
    );
  }
  const name = toServerName(doc.name, {
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const website = readWebsiteUrl(options.registry, doc);
  const toolpack: ServerJsonToolpackMeta = {
    pack: doc.name,
    version: doc.version,
    tags: [...doc.tags],
    tools: doc.tools.map((tool) => tool.name),
    ...(doc.permissions === undefined ? {} : { permissions: describePermissions(doc.permissions) }),
    integrity: doc.dist.integrity,
    tarball: doc.dist.tarball,
    ...(doc.deprecated === undefined ? {} : { deprecated: doc.deprecated }),
    ...(doc.yanked === true ? { yanked: true } : {}),
  };
  return {
    $schema: SERVER_JSON_SCHEMA_URL,
    name,
    description: fitText(doc.description, MAX_DESCRIPTION_LENGTH) ?? `The ${doc.name} tool pack.`,
    ...(doc.name.length <= MAX_TITLE_LENGTH ? { title: doc.name } : {}),
    version: doc.version,
    ...(website === undefined ? {} : { websiteUrl: website }),
    packages: [
      {
        registryType: 'npm',
        identifier: TOOLPACK_CLI_PACKAGE,
        version: options.cliVersion,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments: [
          { type: 'positional', value: 'serve' },
          { type: 'named', name: '--pack', value: `${doc.name}@${doc.version}` },
          { type: 'named', name: '--registry', value: options.registry },
        ],
        environmentVariables: doc.env.map((env) => ({
          name: env.name,
          ...(env.description === undefined || env.description.trim() === ''
            ? {}
            : { description: env.description }),
          isRequired: env.required,
          isSecret: env.secret,
          format: 'string',
        })),
      },
    ],
    _meta: { [PUBLISHER_PROVIDED]: { [SERVER_JSON_META_KEY]: toolpack } },
  };
}

/**
 * `text` trimmed and, past `max` characters (counted as code points, as JSON Schema counts
 * them), cut to `max - 1` with an ellipsis. Undefined for blank text.
 */
function fitText(text: string, max: number): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const characters = Array.from(trimmed);
  if (characters.length <= max) return trimmed;
  return `${characters
    .slice(0, max - 1)
    .join('')
    .trimEnd()}…`;
}

/** The gallery page of the version, when the registry is a web registry. */
function readWebsiteUrl(registry: string, doc: VersionDoc): string | undefined {
  if (!/^https?:\/\//i.test(registry)) return undefined;
  const base = registry.replace(/\/+$/, '');
  return `${base}/packs/${doc.name}?version=${encodeURIComponent(doc.version)}`;
}
