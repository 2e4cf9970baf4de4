import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  LEAST_PERMISSIONS,
  createDiagnostic,
  createIssueDiagnostics,
  findClosestName,
  formatIssuePath,
  getSourceLocation,
  normalizePermissions,
  parseLocatedYaml,
  type CredentialBinding,
  type Diagnostic,
  type LocatedYaml,
  type SecretSource,
} from '@toolpack/core';
import { readPackDependency, type PackDependency } from '../names/pack-names.ts';
import {
  MANIFEST_KEYS,
  SOURCE_KEYS,
  manifestSchema,
  type Manifest,
  type PackManifest,
} from './manifest-schema.ts';

export const MANIFEST_FILE = 'toolpack.yaml';

export interface ParseManifestOptions {
  /** The file, for diagnostics. */
  path: string;
  /** `pack` also requires name, version and description, and sources inside the pack. */
  kind?: 'project' | 'pack';
}

export interface ManifestResult<M extends Manifest = Manifest> {
  /** Undefined when any diagnostic is an error. */
  manifest: M | undefined;
  /** Every problem at once, each with its path in the file and its line. */
  diagnostics: Diagnostic[];
  /** The line of `policy:`, when there is one: a denial names it as the policy's origin. */
  policyLine?: number;
  /**
   * The line of each source's location (`scripts: DIR`), in the order of `sources:`, for
   * problems only found on disk later (a folder that does not exist).
   */
  sourceLines?: (number | undefined)[];
}

/** Parses and validates `toolpack.yaml` text. Never throws: problems are diagnostics. */
export function parseManifest(
  text: string,
  options: ParseManifestOptions & { kind: 'pack' },
): ManifestResult<PackManifest>;
export function parseManifest(text: string, options: ParseManifestOptions): ManifestResult;
export function parseManifest(text: string, options: ParseManifestOptions): ManifestResult {
  const file = options.path;
  const located = parseLocatedYaml(text);
  if (located.problems.length > 0) {
    return {
      manifest: undefined,
      diagnostics: located.problems.map((error) =>
        createDiagnostic(
          'error',
          'E_MANIFEST_YAML',
          `${MANIFEST_FILE} is not valid YAML: ${error.message}`,
          { path: file, ...(error.line === undefined ? {} : { line: error.line }) },
          'Fix the YAML syntax at that line.',
        ),
      ),
    };
  }
  const value = located.value ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      manifest: undefined,
      diagnostics: [
        createDiagnostic(
          'error',
          'E_MANIFEST_FIELD',
          `${MANIFEST_FILE} must be a mapping of keys (name:, sources:, packs: ...), not ${Array.isArray(value) ? 'a list' : 'a single value'}.`,
          { path: file, line: 1 },
        ),
      ],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const at = (segments: readonly PropertyKey[]) => {
    const line = located.lineOf(segments);
    return { path: file, ...(line === undefined ? {} : { line }) };
  };
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) {
    diagnostics.push(
      ...createIssueDiagnostics(parsed.error.issues, {
        code: 'E_MANIFEST_FIELD',
        // An unknown key points at its own line, not at its parent's.
        locate: (issuePath, issue) =>
          at(issue.code === 'unrecognized_keys' ? [...issuePath, issue.keys[0] ?? ''] : issuePath),
        hint: (issuePath, issue) => {
          const closest =
            issue.code === 'unrecognized_keys' ? suggestKnownKey(issuePath, issue.keys) : undefined;
          const hint = hintForKey(issuePath);
          return closest === undefined ? hint : `Did you mean ${closest}:? ${hint ?? ''}`.trim();
        },
        describe: (issue, issuePath) => {
          const message =
            issue.code === 'unrecognized_keys'
              ? `unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}${describeKnownKeys(issuePath)}`
              : issue.code === 'invalid_key'
                ? (issue.issues[0]?.message ?? issue.message)
                : issue.message.replace(/^Invalid input: /, '');
          return `${formatIssuePath(issuePath)}: ${message}`;
        },
      }),
    );
  }
  diagnostics.push(
    ...findUnknownKeys(located, file, options.kind ?? 'project'),
    ...findDuplicateTags(value, at),
    ...findDroppedPackKeys(value, parsed.success ? parsed.data.packs : undefined, at),
  );
  if (options.kind === 'pack')
    diagnostics.push(...findMissingPackFields(value as Record<string, unknown>, at));
  else diagnostics.push(...findProjectPermissions(value as Record<string, unknown>, at));
  if (!parsed.success) return { manifest: undefined, diagnostics };

  const { packs, permissions, ...rest } = parsed.data;
  const declared = permissions ?? LEAST_PERMISSIONS;
  const manifest = {
    ...(JSON.parse(JSON.stringify(rest)) as Omit<
      Manifest,
      'packs' | 'dependencies' | 'permissions'
    >),
    permissions: normalizePermissions({
      ...declared,
      env: [...declared.env, ...rest.env.map((env) => env.name)],
    }),
    packs,
    dependencies: Object.entries(packs)
      .map(([key, range]) => readPackDependency(key, range))
      .filter((d): d is PackDependency => typeof d !== 'string'),
  } as Manifest;
  if (options.kind === 'pack') diagnostics.push(...checkPackManifest(manifest, at));
  manifest.credentials = (manifest.credentials ?? []).map((binding, index) => {
    const line = located.lineOf(['credentials', index]);
    return { ...binding, origin: line === undefined ? MANIFEST_FILE : `${MANIFEST_FILE}:${line}` };
  });
  diagnostics.push(
    ...checkCredentials(manifest, {
      at,
      // A folder with name: and version: is a pack's own, served by its author while writing it.
      asPack: options.kind === 'pack' || manifest.name !== undefined,
      projectDir: path.dirname(path.resolve(file)),
    }),
  );
  const failed = diagnostics.some((d) => d.severity === 'error');
  const policyLine = manifest.policy === undefined ? undefined : located.lineOf(['policy']);
  return {
    manifest: failed ? undefined : manifest,
    diagnostics,
    ...(policyLine === undefined ? {} : { policyLine }),
    sourceLines: manifest.sources.map((source, index) =>
      located.lineOf(['sources', index, getSourceLocation(source).key]),
    ),
  };
}

export interface ReadManifestResult<M extends Manifest = Manifest> extends ManifestResult<M> {
  file: string;
  /** False when there is no toolpack.yaml (then `manifest` is undefined and no diagnostic says so). */
  exists: boolean;
  /** The file's text, for edits that keep its comments. */
  text?: string;
}

/** Reads `<dir>/toolpack.yaml`. A missing file is `exists: false`, not a problem. */
export async function readManifest(
  dir: string,
  options: { kind: 'pack' },
): Promise<ReadManifestResult<PackManifest>>;
export async function readManifest(
  dir: string,
  options?: { kind?: 'project' | 'pack' },
): Promise<ReadManifestResult>;
export async function readManifest(
  dir: string,
  options: { kind?: 'project' | 'pack' } = {},
): Promise<ReadManifestResult> {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { file, exists: false, manifest: undefined, diagnostics: [] };
    return {
      file,
      exists: true,
      manifest: undefined,
      diagnostics: [
        createDiagnostic(
          'error',
          'E_MANIFEST_READ',
          `Cannot read ${MANIFEST_FILE}: ${(error as Error).message}`,
          { path: file },
        ),
      ],
    };
  }
  return { file, exists: true, text, ...parseManifest(text, { path: file, ...options }) };
}

function describeKnownKeys(path: readonly PropertyKey[]): string {
  if (path.includes('permissions')) {
    if (path.at(-1) === 'filesystem') return ' (filesystem has read:, write:)';
    if (path.at(-1) === 'network') return ' (network has access:, hosts:)';
    return ' (permissions has filesystem:, network:, env:, subprocess:)';
  }
  if (path[0] === 'sources')
    return ' (a source is one of tools:, scripts:, module:, workflows:, with include:, exclude:, prefix:)';
  if (path[0] === 'env') return ' (an env entry has name:, required:, secret:, description:)';
  if (path[0] === 'credentials')
    return ' (a credentials entry has parameters:, tools:, username:, password:)';
  if (path[0] === 'policy') return ' (a policy has allow:, deny:, readOnly:)';
  return '';
}

/**
 * The key a misspelt one of a source was meant to be (`script:` -> `scripts`): sources are
 * where a typo drops tools, and their keys are few and known.
 */
function suggestKnownKey(
  path: readonly PropertyKey[],
  keys: readonly string[],
): string | undefined {
  if (path[0] !== 'sources' || path.length !== 2 || keys.length !== 1) return undefined;
  return findClosestName(keys[0] ?? '', SOURCE_KEYS);
}

/** How to fix a problem under the top-level key `path[0]`, so a policy typo is not told about sources. */
function hintForKey(path: readonly PropertyKey[]): string | undefined {
  if (path.includes('permissions'))
    return 'permissions: { filesystem: { read: [project], write: [project/out, temp] }, network: none|any (or { access: any, hosts: [api.example.com] }), env: [NAME], subprocess: true|false } (docs/permissions.md).';
  switch (path[0]) {
    case 'sources':
      return 'Each source is one of `tools: DIR`, `scripts: DIR`, `module: PATH` or `workflows: DIR`, with optional include:, exclude:, prefix:.';
    case 'policy':
      return 'A policy is { allow: [wildcards], deny: [wildcards], readOnly: true|false }, e.g. policy: { deny: ["*_delete*"] }.';
    case 'env':
      return 'An env entry is { name: VAR_NAME, required: true|false, secret: true|false, description: text }.';
    case 'credentials':
      return 'A credentials entry is { parameters: [Credential], tools: [wildcards], username: { env: USER_VAR } or a name, password: { env: SECRET_VAR } or { file: /path/outside/the/project } } (docs/powershell-scripts.md#credentials).';
    case 'feeds':
      return 'A feed is `name: URL` (a NuGet v3 index.json, a v2 feed such as https://www.powershellgallery.com/api/v2, or a folder of .nupkg files), or `name: { url: URL, usernameEnv: VAR, passwordEnv: VAR }` for a private feed.';
    case 'packs':
      return 'Each pack entry is `name: range` (e.g. jira: ^1.2.0) or `alias: name@range`.';
    case 'interpreters':
      return 'Map an extension to a command: interpreters: { ".bas": ["my-basic", "--run"] }.';
    default:
      return undefined;
  }
}

/**
 * Unknown top-level keys. In a project they are errors: a typo such as `soruces:` would
 * otherwise drop every tool while `mcp check` passes. In a pack (installed from a registry,
 * maybe written for a newer Toolpack) they stay warnings, so the pack still loads.
 */
function findUnknownKeys(
  located: LocatedYaml,
  file: string,
  kind: 'project' | 'pack',
): Diagnostic[] {
  return located
    .keysOf([])
    .filter(({ key }) => !MANIFEST_KEYS.includes(key))
    .map(({ key, line }) => {
      const closest = findClosestName(key, MANIFEST_KEYS);
      return createDiagnostic(
        kind === 'project' ? 'error' : 'warning',
        kind === 'project' ? 'E_MANIFEST_UNKNOWN_KEY' : 'W_MANIFEST_UNKNOWN_KEY',
        kind === 'project' ? `${key}: unknown key.` : `${key}: unknown key, ignored.`,
        { path: file, ...(line === undefined ? {} : { line }) },
        closest === undefined
          ? `Known keys: ${MANIFEST_KEYS.join(', ')}.`
          : `Did you mean ${closest}?`,
      );
    });
}

/**
 * `packs:` keys the schema's record leaves out without an issue (`__proto__`, which a plain
 * object cannot hold as its own key): an entry must never vanish silently.
 */
function findDroppedPackKeys(
  value: object,
  parsed: Record<string, string> | undefined,
  at: (segments: readonly PropertyKey[]) => { path: string; line?: number },
): Diagnostic[] {
  const packs = (value as { packs?: unknown }).packs;
  if (typeof packs !== 'object' || packs === null || Array.isArray(packs)) return [];
  return Object.keys(packs)
    .filter((key) => (parsed === undefined ? key === '__proto__' : !Object.hasOwn(parsed, key)))
    .map((key) => {
      const raw = (packs as Record<string, unknown>)[key];
      const read = readPackDependency(key, typeof raw === 'string' ? raw : '');
      return createDiagnostic(
        'error',
        'E_MANIFEST_FIELD',
        `packs.${key}: ${typeof read === 'string' ? read : `"${key}" cannot be a pack entry`}`,
        at(['packs', key]),
      );
    });
}

function findDuplicateTags(
  value: object,
  at: (segments: readonly PropertyKey[]) => { path: string; line?: number },
): Diagnostic[] {
  const tags = (value as { tags?: unknown }).tags;
  if (!Array.isArray(tags)) return [];
  const seen = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  tags.forEach((tag, index) => {
    if (typeof tag !== 'string') return;
    const earlier = seen.get(tag.toLowerCase());
    if (earlier === undefined) {
      seen.set(tag.toLowerCase(), tag);
      return;
    }
    diagnostics.push(
      createDiagnostic(
        'warning',
        'W_DUPLICATE_TAG',
        `tags.${index}: "${tag}" repeats "${earlier}" (tags match case-insensitively); kept once as "${earlier}".`,
        at(['tags', index]),
        `Remove "${tag}".`,
      ),
    );
  });
  return diagnostics;
}

/**
 * `permissions:` at the top of a project's toolpack.yaml: a project's own tools run with the
 * user's rights unless a source asks for `sandbox: true`, so a grant there would confine
 * nothing while looking as if it did. A manifest with a `name:` is a pack's own folder (its
 * author serves it while writing it), where the permissions are what it will ask for.
 */
function findProjectPermissions(
  value: Record<string, unknown>,
  at: (segments: readonly PropertyKey[]) => { path: string; line?: number },
): Diagnostic[] {
  if (value.permissions === undefined || value.name !== undefined) return [];
  return [
    createDiagnostic(
      'error',
      'E_MANIFEST_FIELD',
      "permissions: a project's own tools are not confined by a top-level permissions: key, so it would mean nothing.",
      at(['permissions']),
      'Permissions belong to a pack (its toolpack.yaml, with name: and version:), or beside `sandbox: true` on a source: sources: [{ tools: tools, sandbox: true, permissions: { network: none } }].',
    ),
  ];
}

/** What a pack needs beyond a project: identity, a description and sources (checked on the raw value, so they come with the other problems). */
function findMissingPackFields(
  value: Record<string, unknown>,
  at: (segments: readonly PropertyKey[]) => { path: string; line?: number },
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const missing = (key: string, example: string) =>
    createDiagnostic(
      'error',
      'E_PACK_FIELD_MISSING',
      `${key}: a pack needs a ${key}.`,
      at([]),
      `Add \`${key}: ${example}\` to toolpack.yaml.`,
    );
  const absent = (key: string) => value[key] === undefined || value[key] === null;
  if (absent('name')) diagnostics.push(missing('name', 'my-pack'));
  if (absent('version')) diagnostics.push(missing('version', '1.0.0'));
  if (absent('description')) diagnostics.push(missing('description', 'What these tools do'));
  if (absent('sources') || (Array.isArray(value.sources) && value.sources.length === 0)) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_PACK_NO_SOURCES',
        'sources: a pack without sources has no tools.',
        at([]),
        'Add `sources: [{ tools: tools }]` (or scripts:, module:, workflows:).',
      ),
    );
  }
  return diagnostics;
}

/** A pack's sources must stay inside it; a pack cannot depend on packs. */
function checkPackManifest(
  manifest: Manifest,
  at: (segments: readonly PropertyKey[]) => { path: string; line?: number },
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  manifest.sources.forEach((source, index) => {
    const { key, location } = getSourceLocation(source);
    const problem = findPackPathProblem(location, key === 'module');
    if (problem !== undefined) {
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_PACK_SOURCE_PATH',
          `sources.${index}.${key}: ${JSON.stringify(location)} ${problem}.`,
          at(['sources', index, key]),
          'A pack serves only files it contains: use a path relative to the pack folder.',
        ),
      );
    }
  });
  if (Object.keys(manifest.packs).length > 0) {
    diagnostics.push(
      createDiagnostic(
        'warning',
        'W_PACK_DEPENDENCIES',
        'packs: a pack cannot depend on other packs; these entries are ignored when it is installed.',
        at(['packs']),
        'Ask the users of this pack to add those packs to their project instead.',
      ),
    );
  }
  return diagnostics;
}

/** Why `location` cannot be a source of an installed pack, or undefined when it can. */
export function findPackPathProblem(location: string, isModule: boolean): string | undefined {
  if (/^([A-Za-z]:|[\\/]|~)/.test(location)) return 'is not relative to the pack folder';
  if (location.includes('\\')) return 'uses "\\": write paths with "/"';
  if (location.split('/').some((segment) => segment === '..')) return 'leaves the pack folder';
  if (isModule && !/\.(psd1|psm1|[cm]?[jt]s)$/i.test(location))
    return 'is not a module file (.psd1, .psm1, .js, .mjs, .ts): a module name would be looked up outside the pack';
  return undefined;
}

/** The home folder a `~/` secrets path starts from. */
export function expandSecretPath(file: string, home: string = os.homedir()): string {
  return file === '~' || file.startsWith('~/') ? path.join(home, file.slice(1)) : file;
}

/**
 * `credentials:` entries a manifest may not hold. A secrets file must be named absolutely (or
 * from `~/`) and lie outside the project: a file inside it would be served, packed or committed
 * with it. A pack reads secrets only from the env it declares (`secret: true` for a password),
 * so installing it grants it no other secret of the user's, and never from a file.
 */
function checkCredentials(
  manifest: Manifest,
  options: {
    at: (segments: readonly PropertyKey[]) => { path: string; line?: number };
    asPack: boolean;
    projectDir: string;
  },
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const declared = new Map(manifest.env.map((env) => [env.name, env]));
  const problem = (segments: readonly PropertyKey[], message: string, hint: string) =>
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_MANIFEST_FIELD',
        `${segments.join('.')}: ${message}`,
        options.at(segments),
        hint,
      ),
    );
  (manifest.credentials ?? []).forEach((binding: CredentialBinding, index) => {
    const secrets: [string, SecretSource][] = [['password', binding.password]];
    if (typeof binding.username === 'object') secrets.push(['username', binding.username]);
    for (const [key, source] of secrets) {
      const segments = ['credentials', index, key, 'env' in source ? 'env' : 'file'];
      if ('file' in source) {
        if (options.asPack) {
          problem(
            segments,
            'a pack cannot read a secrets file; it binds credentials only from the env it declares.',
            `Declare the secret in env: ({ name: MYPACK_PASSWORD, secret: true }) and use password: { env: MYPACK_PASSWORD }.`,
          );
          continue;
        }
        const expanded = expandSecretPath(source.file);
        if (!path.isAbsolute(expanded)) {
          problem(
            segments,
            `${JSON.stringify(source.file)} is relative: a secrets file is named from / or ~/ and lies outside the project.`,
            'Keep secrets out of the project, e.g. file: ~/.config/toolpack/secrets/ad.txt (readable by you only).',
          );
          continue;
        }
        const relative = path.relative(options.projectDir, path.resolve(expanded));
        if (relative === '' || !(relative.startsWith('..') || path.isAbsolute(relative))) {
          problem(
            segments,
            `${JSON.stringify(source.file)} is inside the project, where it would be served, packed or committed with it.`,
            'Move the file out of the project, e.g. to ~/.config/toolpack/secrets/, and name it there.',
          );
        }
        continue;
      }
      if (!options.asPack) continue;
      const env = declared.get(source.env);
      if (env === undefined || (key === 'password' && !env.secret)) {
        problem(
          segments,
          env === undefined
            ? `${source.env} is not declared in env:, and a pack binds credentials only from the env it declares.`
            : `${source.env} is declared without secret: true, and a password is a secret.`,
          `Declare it: env: [{ name: ${source.env}, required: true, secret: true }] (users then approve it when they add the pack).`,
        );
      }
    }
  });
  return diagnostics;
}
