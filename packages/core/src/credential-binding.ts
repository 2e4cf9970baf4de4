import { z } from 'zod';
import { wildcardListSchema } from './source-spec.ts';

/** The PowerShell types a server-side secret can stand for. */
export const CREDENTIAL_TYPES = ['pscredential', 'securestring'] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/**
 * Where a secret is read when a tool is called: an environment variable of the server, or a
 * file outside the project (its text, without the final line break).
 */
export type SecretSource = { env: string } | { file: string };

/**
 * One `credentials:` entry of toolpack.yaml: which `[pscredential]`/`[securestring]`
 * parameters the server fills in, from which secrets. The parameter leaves the input schema,
 * so a model never sees or sends it.
 */
export interface CredentialBinding {
  /** Parameter names or wildcards (case-insensitive); absent: every credential parameter. */
  parameters?: string[];
  /** Tool names or wildcards (the name before any prefix, or the function/file name). */
  tools?: string[];
  /** A `[pscredential]` needs one: a plain user name, or a secret. Unused for `[securestring]`. */
  username?: string | SecretSource;
  password: SecretSource;
  /** Where the entry is written, for diagnostics: `toolpack.yaml:12`. */
  origin?: string;
}

/**
 * A `[pscredential]` or `[securestring]` parameter of a PowerShell command, as the reader
 * finds it: never in the input schema; discovery binds it to a `CredentialBinding` or
 * refuses what needs it.
 */
export interface CredentialParameter {
  name: string;
  type: CredentialType;
  /** The parameter's line in its file. */
  line: number;
  /** Mandatory in every parameter set the command has (or in its only one). */
  required: boolean;
  /** With several parameter sets: the sets that take it, and those where it is mandatory. */
  sets?: string[];
  requiredIn?: string[];
}

/** A credential parameter bound to its secrets: what the runner builds before the call. */
export interface BoundCredential {
  parameter: string;
  type: CredentialType;
  username?: string | SecretSource;
  password: SecretSource;
  /** With several parameter sets: passed only when the call binds one of these. */
  sets?: string[];
  /** The `credentials:` entry that bound it (`toolpack.yaml:12`), for messages. */
  origin?: string;
}

const envNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not an environment variable name`,
});

export const secretSourceSchema = z.union(
  [
    z.strictObject({ env: envNameSchema }),
    z.strictObject({
      file: z.string().min(1, { error: 'a secrets file needs a path' }),
    }),
  ],
  { error: 'a secret is { env: VARIABLE } or { file: /path/outside/the/project }' },
);

/** A `credentials:` entry as written in toolpack.yaml (the project-relative checks are the manifest's). */
export const credentialBindingSchema = z.strictObject({
  parameters: wildcardListSchema
    .min(1, { error: 'name at least one parameter, or leave parameters: out' })
    .optional(),
  tools: wildcardListSchema
    .min(1, { error: 'name at least one tool, or leave tools: out' })
    .optional(),
  username: z
    .union([z.string().min(1, { error: 'the user name is empty' }), secretSourceSchema])
    .optional(),
  password: secretSourceSchema,
});
