import { z } from 'zod';
import type { CredentialBinding } from './credential-binding.ts';
import { packPermissionsSchema, type PackPermissions } from './pack-permissions.ts';

/** Wildcards (`Get-*`, `jira_*`), as `include:`, `exclude:` and a policy's `allow:`/`deny:` take them. */
export const wildcardListSchema = z.array(
  z.string().min(1, { error: 'an empty pattern matches nothing' }),
);

export const SOURCE_LOCATION_KEYS = ['tools', 'scripts', 'module', 'workflows'] as const;
export type SourceLocationKey = (typeof SOURCE_LOCATION_KEYS)[number];

/** Per-source settings, as `toolpack.yaml`'s `sources:` entries and the CLI flags give them. */
export interface SourceOptions {
  /** Wildcards (`Get-*`, `*_config`); a tool must match one when any are given. */
  include?: readonly string[];
  exclude?: readonly string[];
  /** `true`: the module, folder or pack name; a string: that prefix. Joined with `_`. */
  prefix?: boolean | string;
  /** Set for an installed pack: its alias prefixes every tool and lands in `source.pack`. */
  pack?: string;
  /**
   * Run the tools confined to `permissions` (bubblewrap on Linux; docs/permissions.md). Every
   * installed pack's sources have it; a project's own sources only when they ask.
   */
  sandbox?: boolean;
  /** What confined tools may touch (default: `LEAST_PERMISSIONS`). */
  permissions?: PackPermissions;
  /**
   * The folder confined tools may always read, relative to the project root: set for an
   * installed pack (its whole folder); otherwise the source's own folder.
   */
  sandboxRoot?: string;
  /**
   * `credentials:` of the toolpack.yaml the source belongs to (the project's, or its pack's),
   * set by the project loader: which credential parameters its tools get from server secrets.
   */
  credentials?: readonly CredentialBinding[];
  /**
   * Set by the project loader for the project's own sources: the toolpack.yaml that names the
   * source and the line of its location, so a source that does not exist is reported there.
   */
  origin?: { path: string; line?: number };
  /**
   * Set by the project loader for an installed pack's sources: the pack's own (approved)
   * `interpreters:`. Its tools run with these over Toolpack's defaults, never with the
   * project's or another pack's; its script roots serve their extensions.
   */
  interpreters?: Readonly<Record<string, readonly string[]>>;
  /**
   * `tools:` sources only: PowerShell modules (`.psd1`/`.psm1`/`.dll`) to import and scripts
   * (`.ps1`) to dot-source into the runspace before a tool's `script.ps1`, relative to the
   * project root (docs/dotbot-tool-folders.md).
   */
  preload?: readonly string[];
}

/** One place tools come from: exactly one location, plus its settings. */
export type SourceSpec =
  | ({ tools: string } & SourceOptions)
  | ({ scripts: string } & SourceOptions)
  | ({ module: string } & SourceOptions)
  | ({ workflows: string } & SourceOptions);

/**
 * A source as a user writes it in `toolpack.yaml` (no `pack:`: that is set only for the
 * sources of an installed pack, so a project cannot pass its tools off as a pack's).
 */
export const sourceSpecSchema = z
  .strictObject({
    tools: z.string().min(1).optional(),
    scripts: z.string().min(1).optional(),
    module: z.string().min(1).optional(),
    workflows: z.string().min(1).optional(),
    include: wildcardListSchema.optional(),
    exclude: wildcardListSchema.optional(),
    prefix: z
      .union([
        z.boolean(),
        z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, {
          error: 'a prefix is 1-32 letters, digits, "_" or "-"',
        }),
      ])
      .optional(),
    sandbox: z.boolean().optional(),
    permissions: packPermissionsSchema.optional(),
    preload: z
      .array(
        z
          .string()
          .min(1)
          .regex(/\.(psd1|psm1|dll|ps1)$/i, {
            error: (issue) =>
              `${JSON.stringify(issue.input)} is not a module (.psd1, .psm1, .dll) or a script (.ps1)`,
          }),
      )
      .optional(),
  })
  .superRefine((source, context) => {
    if (source.permissions !== undefined && source.sandbox !== true) {
      context.addIssue({
        code: 'custom',
        message:
          'permissions: only apply to a confined source: add sandbox: true (or drop the permissions)',
        path: ['permissions'],
      });
    }
    if (source.preload !== undefined && source.tools === undefined) {
      context.addIssue({
        code: 'custom',
        message:
          'preload: belongs to a tools: source (tool folders); a module or script source loads its own imports',
        path: ['preload'],
      });
    }
    const given = SOURCE_LOCATION_KEYS.filter((key) => source[key] !== undefined);
    if (given.length !== 1) {
      context.addIssue({
        code: 'custom',
        message:
          given.length === 0
            ? 'a source needs one of tools:, scripts:, module: or workflows:'
            : `a source has one location, not ${given.join(' and ')}: split it into ${given.length} sources`,
      });
    }
  });

/** Which kind of source an entry is, and the path (or glob, or module) it names. */
export function getSourceLocation(source: SourceSpec): {
  key: SourceLocationKey;
  location: string;
} {
  for (const key of SOURCE_LOCATION_KEYS) {
    const location = (source as Partial<Record<SourceLocationKey, string>>)[key];
    if (location !== undefined) return { key, location };
  }
  // The type (and the schema) guarantee exactly one location; this only satisfies the checker.
  throw new Error('A source without a location.');
}
