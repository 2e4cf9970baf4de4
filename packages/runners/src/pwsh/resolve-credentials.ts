import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import {
  type BoundCredential,
  type DiscoveredTool,
  type SecretSource,
  type ToolpackErrorCode,
} from '@toolpack/core';
import { findWithheldAllowListEntries } from '@toolpack/containment';
import { bindParameterSet } from '../bind-parameter-set.ts';
import type { HostCredential } from './host-protocol.ts';

const UNSET: ToolpackErrorCode = 'E_CREDENTIAL_UNSET';

export interface ResolveCredentialsInput {
  tool: DiscoveredTool;
  args: Record<string, unknown>;
  credentials: readonly BoundCredential[];
  /** The server's own environment (not the tool's): where `{ env: NAME }` secrets are read. */
  environment: Readonly<Record<string, string | undefined>>;
  /** Where `~/` in a secrets file path starts. */
  home?: string;
}

export type ResolvedCredentials =
  { ok: true; credentials: HostCredential[]; secrets: string[] } | { ok: false; message: string };

/**
 * Reads the secrets of a call's server-bound credential parameters, at call time (a rotated
 * secret needs no restart). Only the parameters the call's parameter set takes are passed, so
 * a credential never pushes PowerShell into another set. A missing secret is an error naming
 * the variable or file, never a value; `secrets` lists every value read, for redaction.
 */
export function resolveCredentials(input: ResolveCredentialsInput): ResolvedCredentials {
  const credentials: HostCredential[] = [];
  const secrets: string[] = [];
  const set =
    input.tool.parameterSets === undefined
      ? undefined
      : bindParameterSet(input.tool.parameterSets, input.args);
  for (const credential of input.credentials) {
    if (credential.sets !== undefined && set?.bound === true) {
      if (!credential.sets.includes(set.set.name)) continue;
    }
    const read = (source: SecretSource): string | { problem: string } =>
      readSecret(source, input.environment, input.home ?? homedir());
    const password = read(credential.password);
    if (typeof password !== 'string')
      return { ok: false, message: describeUnset(input.tool, credential, password.problem) };
    secrets.push(password);
    let username: string | null = null;
    if (credential.type === 'pscredential') {
      const source = credential.username;
      if (typeof source === 'string') username = source;
      else if (source !== undefined) {
        const value = read(source);
        if (typeof value !== 'string')
          return { ok: false, message: describeUnset(input.tool, credential, value.problem) };
        username = value;
      }
      // A [pscredential] binding always has a user name (discovery binds none without one).
      if (username === null) continue;
    }
    credentials.push({
      parameter: credential.parameter,
      type: credential.type,
      username,
      password,
    });
  }
  return { ok: true, credentials, secrets };
}

function readSecret(
  source: SecretSource,
  environment: Readonly<Record<string, string | undefined>>,
  home: string,
): string | { problem: string } {
  if ('env' in source) {
    if (findWithheldAllowListEntries([source.env]).length > 0)
      return {
        problem: `the environment variable ${source.env} is Toolpack's own secret, which it never passes to a tool`,
      };
    const value = environment[source.env];
    if (value === undefined || value === '')
      return { problem: `the environment variable ${source.env} is not set for the server` };
    return value;
  }
  const file =
    source.file === '~' || source.file.startsWith('~/')
      ? path.join(home, source.file.slice(1))
      : source.file;
  try {
    // One line break at the end is how editors and `echo` leave a file; it is not the secret.
    const value = readFileSync(file, 'utf8').replace(/\r?\n$/u, '');
    if (value === '') return { problem: `the file ${source.file} is empty` };
    return value;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      problem: `the file ${source.file} cannot be read (${code === 'ENOENT' ? 'it does not exist' : (code ?? 'unreadable')})`,
    };
  }
}

function describeUnset(tool: DiscoveredTool, credential: BoundCredential, problem: string): string {
  const sources = [credential.username, credential.password].filter(
    (source): source is SecretSource => typeof source === 'object',
  );
  const envs = sources.flatMap((source) => ('env' in source ? [source.env] : []));
  const files = sources.flatMap((source) => ('file' in source ? [source.file] : []));
  const from = [
    ...(envs.length === 0
      ? []
      : [`the environment variable${envs.length === 1 ? '' : 's'} ${envs.join(' and ')}`]),
    ...(files.length === 0
      ? []
      : [`the file${files.length === 1 ? '' : 's'} ${files.join(' and ')}`]),
  ].join(' and ');
  return (
    `${UNSET} Tool "${tool.name}" was not run: the server binds its -${credential.parameter} [${credential.type}] from ${from} (toolpack.yaml credentials:), and ${problem}. ` +
    'Set it where the server starts (or fix the file), then call the tool again; the model cannot supply it.'
  );
}

/**
 * Replaces every secret a call was given with `[secret]` in a text that leaves the server as
 * an error or a log line. Secrets under 4 characters are left: replacing them would garble
 * the text while hiding almost nothing.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets)
    if (secret.length >= 4) redacted = redacted.split(secret).join('[secret]');
  return redacted;
}
