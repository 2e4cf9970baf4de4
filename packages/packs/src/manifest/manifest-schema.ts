import { z } from 'zod';
import {
  credentialBindingSchema,
  packPermissionsSchema,
  parseDuration,
  schemaDialectSchema,
  sourceSpecSchema,
  toolPolicySchema,
  wildcardListSchema,
  type CredentialBinding,
  type PackPermissions,
  type SchemaDialect,
  type SourceSpec,
  type ToolPolicy,
} from '@toolpack/core';
import {
  isValidPackName,
  isValidVersion,
  readPackDependency,
  type PackDependency,
} from '../names/pack-names.ts';

const quote = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);

const envSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    error: (issue) => `${quote(issue.input)} is not an environment variable name`,
  }),
  required: z.boolean().default(false),
  secret: z.boolean().default(false),
  description: z.string().optional(),
});

const tagSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9+#._-]{0,49}$/, {
  error: (issue) =>
    `${quote(issue.input)} is not a valid tag: use letters, digits and . _ - + # (at most 50)`,
});

const envNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: (issue) => `${quote(issue.input)} is not an environment variable name`,
});

/**
 * A NuGet feed PowerShell modules are added from (`mcp pack add <id> --source <name>`). Its
 * credentials are never written here: `passwordEnv` (a token, an Azure Artifacts PAT) and
 * `usernameEnv` name the variables that hold them.
 */
const feedSchema = z.strictObject({
  url: z.string().min(1, { error: 'a feed needs its url: (or a folder of .nupkg files)' }),
  usernameEnv: envNameSchema.optional(),
  passwordEnv: envNameSchema.optional(),
});

/**
 * `toolpack.yaml`, for a project and for a pack (docs/architecture.md "Projects and packs"). Unknown
 * top-level keys are allowed here and reported as warnings by `parseManifest`, so a newer
 * manifest still loads in an older CLI.
 */
export const manifestSchema = z.looseObject({
  name: z
    .string()
    .refine(isValidPackName, {
      error: (issue) =>
        `${quote(issue.input)} is not a valid pack name: use lowercase letters, digits and hyphens (at most 64), optionally owner/name`,
    })
    .optional(),
  version: z
    .string({ error: (issue) => `${quote(issue.input)} is not a semver version: quote it ("1.0")` })
    .refine(isValidVersion, {
      error: (issue) => `${quote(issue.input)} is not a valid semver version (e.g. 1.2.0)`,
    })
    .optional(),
  description: z.string().trim().min(1, { error: 'the description is empty' }).optional(),
  // An SPDX licence expression (MIT, Apache-2.0, MIT OR Apache-2.0): shown by the gallery.
  license: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.+-]+(?: (?:AND|OR|WITH) [A-Za-z0-9.+-]+)*$/, {
      error: (issue) =>
        `${quote(issue.input)} is not an SPDX licence expression such as MIT or Apache-2.0`,
    })
    .max(100)
    .optional(),
  // Where the pack's source lives: the gallery links to it, so only http(s) is accepted.
  repository: z
    .url({
      protocol: /^https?$/,
      error: (issue) => `${quote(issue.input)} is not an http(s) URL of the pack's repository`,
    })
    .max(500)
    .optional(),
  tags: z
    .array(tagSchema)
    .max(20, { error: 'at most 20 tags' })
    .transform((tags) => dedupeCaseInsensitive(tags))
    .default([]),
  sources: z.array(sourceSpecSchema).default([]),
  env: z.array(envSchema).default([]),
  credentials: z.array(credentialBindingSchema).default([]),
  permissions: packPermissionsSchema.optional(),
  packs: z
    .record(z.string(), z.string({ error: 'a pack range is a string such as "^1.2.0"' }))
    .superRefine((packs, context) => {
      const aliases = new Map<string, string>();
      for (const [key, value] of Object.entries(packs)) {
        const read = readPackDependency(key, value);
        if (typeof read === 'string') {
          context.addIssue({ code: 'custom', message: read, path: [key] });
          continue;
        }
        const earlier = aliases.get(read.alias);
        if (earlier !== undefined) {
          context.addIssue({
            code: 'custom',
            message: `${key} and ${earlier} would both be served as ${read.alias}_*: give one an alias (alias: name@range)`,
            path: [key],
          });
        }
        aliases.set(read.alias, key);
      }
    })
    .nullish()
    .transform((packs) => packs ?? {}),
  policy: toolPolicySchema.optional(),
  include: wildcardListSchema.optional(),
  exclude: wildcardListSchema.optional(),
  maxTools: z.int().positive().optional(),
  strict: z.boolean().optional(),
  lenientHelp: z.boolean().optional(),
  schemaDialect: schemaDialectSchema.optional(),
  progressTimeoutCap: z
    .union([z.number(), z.string()])
    .transform((value, context) => {
      const ms = parseDuration(value, { defaultUnitMs: 1000 });
      if (ms !== undefined && ms >= 1000) return Math.round(ms);
      context.addIssue({
        code: 'custom',
        message: `${quote(value)} is not a duration of a second or more (such as 30m, 2h or 3600)`,
      });
      return z.NEVER;
    })
    .optional(),
  interpreters: z
    .record(
      z.string().regex(/^\.[A-Za-z0-9]{1,16}$/, {
        error: (issue) => `${quote(issue.input)} is not a file extension such as ".bas"`,
      }),
      z.union([
        z
          .string()
          .min(1)
          .transform((command) => [command]),
        z
          .array(z.string().min(1))
          .min(1, { error: 'an interpreter is a command: ["name", ...args]' }),
      ]),
    )
    .optional(),
  registry: z.string().min(1).optional(),
  feeds: z
    .record(
      z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
        error: (issue) =>
          `${quote(issue.input)} is not a feed name: use letters, digits and . _ - (at most 64)`,
      }),
      z.union([
        z
          .string()
          .min(1)
          .transform((url) => ({ url })),
        feedSchema,
      ]),
    )
    .optional(),
});

export const MANIFEST_KEYS: readonly string[] = Object.keys(manifestSchema.shape);

/** The keys a `sources:` entry may have (`scripts:`, `include:` ...). */
export const SOURCE_KEYS: readonly string[] = Object.keys(sourceSpecSchema.shape);

export interface EnvRequirement {
  name: string;
  required: boolean;
  secret: boolean;
  description?: string;
}

/** A parsed `toolpack.yaml`. A pack's has `name` and `version`; a project's may not. */
export interface Manifest {
  name?: string;
  version?: string;
  description?: string;
  /** An SPDX licence expression. */
  license?: string;
  /** An http(s) URL of the pack's source. */
  repository?: string;
  /** Exact, case-insensitively unique, in the author's spelling. */
  tags: string[];
  /** As written: never with `pack:` (only an installed pack's sources get one). */
  sources: SourceSpec[];
  env: EnvRequirement[];
  /**
   * `credentials:`: the `[pscredential]`/`[securestring]` parameters the server binds from
   * secrets, each with its `origin` (`toolpack.yaml:<line>`); `parseManifest` always sets it. A pack's read only its own
   * declared secret env; a project's secrets files lie outside the project.
   */
  credentials?: CredentialBinding[];
  /**
   * What a pack's tools may touch (`permissions:`, normalised), with the names of `env:`
   * merged in (a pack's env entries are what it reads); `LEAST_PERMISSIONS` plus those names
   * when it declares none. A project cannot declare its own (only a `sandbox: true` source can).
   */
  permissions: PackPermissions;
  /** The raw `packs:` entries (key -> range or name@range); `dependencies` reads them. */
  packs: Record<string, string>;
  /** `packs:` read: alias, pack name and range of each entry. */
  dependencies: PackDependency[];
  /** As written, without `origin` (`loadProject` adds the line). */
  policy?: ToolPolicy;
  include?: string[];
  exclude?: string[];
  maxTools?: number;
  strict?: boolean;
  /**
   * Serve PowerShell tools whose parameters have no description, with a warning each, instead
   * of refusing them (what MCPServerPS does); `--lenient-help` turns it on too.
   */
  lenientHelp?: boolean;
  /** How the server lists input schemas (`--schema-dialect` overrides it); default portable. */
  schemaDialect?: SchemaDialect;
  /**
   * `progressTimeoutCap:` in milliseconds: the longest a call of a tool whose progress restarts
   * its timeout may run in all (written `2h`, `90m`, or seconds).
   */
  progressTimeoutCap?: number;
  interpreters?: Record<string, string[]>;
  /** The registry URL or folder this project installs from. */
  registry?: string;
  /** `feeds:`: named NuGet feeds (`--source <name>`); a plain string is `{ url }`. */
  feeds?: Record<string, FeedSpec>;
}

/** A named NuGet feed of `feeds:`: a v3 index.json, a v2 URL or a folder (relative to the project). */
export interface FeedSpec {
  url: string;
  /** The variable holding the login's user name (default: any, as token feeds accept). */
  usernameEnv?: string;
  /** The variable holding the password or token; without it, no login is sent. */
  passwordEnv?: string;
}

/** A pack's manifest: name and version are present. */
export type PackManifest = Manifest & { name: string; version: string; description: string };

function dedupeCaseInsensitive(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((tag) => {
    const key = tag.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
