import { z } from 'zod';
import { packPermissionsSchema, type PackPermissions, type ToolAnnotations } from '@toolpack/core';
import type { EnvRequirement } from '../manifest/manifest-schema.ts';

/**
 * The Registry API's documents (docs/architecture.md "Registry API"). A registry is untrusted input,
 * so the client checks every answer against these schemas; extra fields are allowed so a
 * newer registry still works with an older client.
 */

/** A tool of a pack, as the pack itself names it (served as `<alias>_<name>`). */
export interface PackToolSummary {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** What the tool's results hold; absent from registries older than output schemas. */
  outputSchema?: Record<string, unknown>;
  /** Worked calls, in source order; absent when the tool gives none. */
  inputExamples?: { arguments: Record<string, unknown>; description?: string }[];
  annotations?: ToolAnnotations;
}

export interface PackDist {
  /** Absolute, or relative to the registry's base URL. A folder registry gives `file:<path>`. */
  tarball: string;
  /** `sha512-<base64>` of the tarball's bytes. */
  integrity: string;
  size: number;
  fileCount: number;
}

export interface VersionDoc {
  name: string;
  version: string;
  description: string;
  tags: string[];
  tools: PackToolSummary[];
  env: EnvRequirement[];
  /**
   * What the version's tools may touch, as its toolpack.yaml declares it (normalised, `env:`
   * names merged in). Absent from registries older than permissions; when present, an install
   * refuses a tarball whose toolpack.yaml says otherwise (E_PACK_PERMISSIONS_MISMATCH).
   */
  permissions?: PackPermissions;
  /**
   * The version's own `interpreters:` (extension -> argv), when it declares any: they run its
   * tools, so the gallery shows them beside the permissions and `mcp pack add` asks about them.
   */
  interpreters?: Record<string, string[]>;
  /** The SPDX licence expression its toolpack.yaml gives, when it gives one. */
  license?: string;
  /** The http(s) URL of its source its toolpack.yaml gives, when it gives one. */
  repository?: string;
  dist: PackDist;
  /** The deprecation message, when the version is deprecated. */
  deprecated?: string;
  yanked?: boolean;
}

export interface PackDoc {
  name: string;
  description: string;
  tags: string[];
  /** The highest version that is neither a prerelease nor yanked, when there is one. */
  latest?: string;
  versions: Record<string, VersionDoc>;
}

export interface PackSummary {
  name: string;
  version: string;
  description: string;
  tags: string[];
  toolCount: number;
}

export interface SearchResponse {
  packs: PackSummary[];
  metadata: {
    count: number;
    nextCursor?: string | null;
    /**
     * NuGet feeds only: listed matches that no `mcp pack add <name>` installs (an id no pack
     * name stands for, a version semver cannot spell, only prereleases), each with why, so a
     * search does not hide them.
     */
    passedOver?: { id: string; version: string; reason: string }[];
  };
}

export interface SearchQuery {
  /** Words, each matched (case-insensitively) in the name, description, tags or tool names. */
  q?: string;
  /** Exact, case-insensitive; a pack must have every one. */
  tags?: string[];
  cursor?: string;
  limit?: number;
}

const toolSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

const envSchema = z.looseObject({
  name: z.string().min(1),
  required: z.boolean().default(false),
  secret: z.boolean().default(false),
  description: z.string().optional(),
});

export const versionDocSchema = z.looseObject({
  name: z.string().min(1),
  version: z.string().min(1),
  description: z.string().default(''),
  tags: z.array(z.string()).default([]),
  tools: z.array(toolSchema).default([]),
  env: z.array(envSchema).default([]),
  // Strict like a manifest's: a grant this client cannot read must not pass for no grant.
  permissions: packPermissionsSchema.optional(),
  interpreters: z.record(z.string(), z.array(z.string())).optional(),
  license: z.string().optional(),
  repository: z.string().optional(),
  dist: z.looseObject({
    tarball: z.string().min(1),
    integrity: z.string().min(1),
    size: z.number().nonnegative().default(0),
    fileCount: z.number().nonnegative().default(0),
  }),
  deprecated: z
    .union([z.string(), z.boolean()])
    .optional()
    .transform((value) =>
      value === true ? 'deprecated' : value === false || value === '' ? undefined : value,
    ),
  yanked: z.boolean().optional(),
});

export const packDocSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().default(''),
  tags: z.array(z.string()).default([]),
  latest: z
    .string()
    .nullish()
    .transform((value) => value ?? undefined),
  versions: z.record(z.string(), versionDocSchema),
});

export const searchResponseSchema = z.looseObject({
  packs: z.array(
    z.looseObject({
      name: z.string(),
      version: z.string(),
      description: z.string().default(''),
      tags: z.array(z.string()).default([]),
      toolCount: z.number().default(0),
    }),
  ),
  metadata: z
    .looseObject({ count: z.number().default(0), nextCursor: z.string().nullish() })
    .default({ count: 0 }),
});
