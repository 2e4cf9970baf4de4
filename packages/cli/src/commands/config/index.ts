import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SCHEMA_DIALECT, ToolpackError, type SchemaDialect } from '@toolpack/core';
import { describeUnpublishedCli } from '../../describe-unpublished.ts';
import { findCliPackage } from '../../find-cli-package.ts';
import type { CommandContext } from '../../io.ts';

export const CONFIG_CLIENTS = ['claude', 'vscode', 'cursor'] as const;
export type ConfigClient = (typeof CONFIG_CLIENTS)[number];

export interface ServerLaunch {
  command: string;
  args: string[];
}

export interface ClientConfigTarget {
  /** The file `--write` merges into. */
  file: string;
  /** The top-level key that holds the servers (`mcpServers`, or `servers` for VS Code). */
  container: 'mcpServers' | 'servers';
  /**
   * Set for a project's own file (`--project`): a pack granted the project may have put a
   * link there, so it is read only when it is a plain file of its own.
   */
  inProject?: boolean;
}

/** The platform's per-user configuration folder, from the environment so tests can move it. */
function userConfigDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const home = env.HOME ?? env.USERPROFILE ?? os.homedir();
  if (platform === 'win32') return env.APPDATA ?? path.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME ?? path.join(home, '.config');
}

/**
 * Where each client reads its MCP servers. User-wide by default (Claude Desktop has only
 * that); `project` picks the file VS Code or Cursor read from the project folder instead.
 */
export function findClientConfig(
  client: ConfigClient,
  options: {
    env: NodeJS.ProcessEnv;
    projectDir: string;
    project?: boolean;
    platform?: NodeJS.Platform;
  },
): ClientConfigTarget {
  const platform = options.platform ?? process.platform;
  const home = options.env.HOME ?? options.env.USERPROFILE ?? os.homedir();
  if (client === 'claude') {
    if (options.project) {
      throw new ToolpackError('E_USAGE', 'Claude Desktop has no per-project configuration.', {
        hint: 'Drop --project; the entry carries the project folder itself (-C).',
      });
    }
    return {
      file: path.join(userConfigDir(options.env, platform), 'Claude', 'claude_desktop_config.json'),
      container: 'mcpServers',
    };
  }
  if (client === 'vscode') {
    return {
      file: options.project
        ? path.join(options.projectDir, '.vscode', 'mcp.json')
        : path.join(userConfigDir(options.env, platform), 'Code', 'User', 'mcp.json'),
      container: 'servers',
      ...(options.project ? { inProject: true } : {}),
    };
  }
  return {
    file: options.project
      ? path.join(options.projectDir, '.cursor', 'mcp.json')
      : path.join(home, '.cursor', 'mcp.json'),
    container: 'mcpServers',
    ...(options.project ? { inProject: true } : {}),
  };
}

/**
 * How a client should start `mcp serve` for a project. Normally the Node that runs this
 * command and this package's own bin, by absolute path: it works for a global and a project
 * install alike and needs nothing on the client's PATH (GUI apps often have a short one).
 * When this CLI runs from npx's throwaway cache, or with `npx: true` (a config to share),
 * `npx -y @toolpack/cli@<version>` instead.
 */
export function resolveServerLaunch(options: {
  projectDir: string;
  version: string;
  npx?: boolean;
  /** This package's `mcp` bin (findCliPackage). */
  binPath: string;
  nodePath?: string;
  /** Add `--schema-dialect` to the serve command unless it is the default. */
  schemaDialect?: SchemaDialect;
}): ServerLaunch {
  const { binPath } = options;
  const serveArgs = [
    '-C',
    options.projectDir,
    'serve',
    ...(options.schemaDialect === undefined || options.schemaDialect === DEFAULT_SCHEMA_DIALECT
      ? []
      : ['--schema-dialect', options.schemaDialect]),
  ];
  const fromNpxCache = /[\\/]_npx[\\/]/.test(binPath);
  if (options.npx === true || fromNpxCache || !existsSync(binPath)) {
    return { command: 'npx', args: ['-y', `@toolpack/cli@${options.version}`, ...serveArgs] };
  }
  return { command: options.nodePath ?? process.execPath, args: [binPath, ...serveArgs] };
}

/** The entry one client expects for one stdio server. */
export function buildServerEntry(
  client: ConfigClient,
  launch: ServerLaunch,
): Record<string, unknown> {
  return client === 'vscode'
    ? { type: 'stdio', command: launch.command, args: launch.args }
    : { command: launch.command, args: launch.args };
}

/** A default server name: `toolpack-<project folder>`, in the characters clients accept. */
export function defaultServerName(projectDir: string): string {
  const base = path
    .basename(projectDir)
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `toolpack-${base || 'project'}`.slice(0, 64);
}

/**
 * A client's config file as text. A project's own is opened without following a link and
 * refused (`E_CONFIG`) when it is one, is not a regular file or has other hard links: a pack
 * granted the project could plant `.vscode/mcp.json -> ~/.config/Code/User/mcp.json`, and
 * merging would copy the user's servers (their tokens) into the project, where it reads them.
 */
async function readConfigFile(target: ClientConfigTarget): Promise<string> {
  const guarded = target.inProject === true;
  const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
  const refuse = (why: string) =>
    new ToolpackError(
      'E_CONFIG',
      `${target.file} ${why}; it was left untouched: whatever may write the project (a pack granted it) could have put it there to have this command read another file of yours into the project.`,
      { path: target.file, hint: 'Look at what it is and remove it, then run the command again.' },
    );
  // Without O_NOFOLLOW (Windows) a link is refused by looking first.
  if (
    guarded &&
    O_NOFOLLOW === 0 &&
    (await lstat(target.file).catch(() => undefined))?.isSymbolicLink()
  )
    throw refuse('is a symbolic link');
  let handle;
  try {
    handle = await open(target.file, guarded ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK : O_RDONLY);
  } catch (error) {
    if (guarded && (error as NodeJS.ErrnoException).code === 'ELOOP')
      throw refuse('is a symbolic link');
    throw error;
  }
  try {
    if (guarded) {
      const stats = await handle.stat();
      if (!stats.isFile()) throw refuse('is not a regular file');
      if (stats.nlink > 1) throw refuse('has other hard links');
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Adds (or replaces) one server in a client's config file, keeping every other entry and
 * key. A file that is not a JSON object (or holds comments) is refused, never rewritten.
 */
export async function mergeServerEntry(
  target: ClientConfigTarget,
  name: string,
  entry: Record<string, unknown>,
): Promise<'added' | 'updated' | 'unchanged'> {
  let config: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = await readConfigFile(target);
  } catch (error) {
    if (error instanceof ToolpackError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ToolpackError(
        'E_CONFIG',
        `Cannot read ${target.file}: ${(error as Error).message}`,
        {
          path: target.file,
        },
      );
    }
  }
  if (text !== undefined && text.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ToolpackError(
        'E_CONFIG',
        `${target.file} is not valid JSON (${(error as Error).message}); it was left untouched.`,
        {
          path: target.file,
          hint: 'Fix the file (comments are not supported here), or add the entry printed by `mcp config` without --write by hand.',
        },
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ToolpackError(
        'E_CONFIG',
        `${target.file} does not hold a JSON object; it was left untouched.`,
        {
          path: target.file,
          hint: 'Fix the file, or add the entry printed by `mcp config` without --write by hand.',
        },
      );
    }
    config = parsed as Record<string, unknown>;
  }
  const servers = config[target.container] ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new ToolpackError(
      'E_CONFIG',
      `"${target.container}" in ${target.file} is not an object; it was left untouched.`,
      {
        path: target.file,
        hint: `Make "${target.container}" an object of servers, or fix it by hand.`,
      },
    );
  }
  const existing = (servers as Record<string, unknown>)[name];
  if (JSON.stringify(existing) === JSON.stringify(entry)) return 'unchanged';
  const next = {
    ...config,
    [target.container]: { ...(servers as Record<string, unknown>), [name]: entry },
  };
  await mkdir(path.dirname(target.file), { recursive: true });
  // Write beside and rename, so a crash never leaves the client with half a file. The name
  // is new (`wx`): a link planted at a name it could guess is never written through.
  const temporary = `${target.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, {
    encoding: 'utf8',
    flag: 'wx',
  });
  await rename(temporary, target.file);
  return existing === undefined ? 'added' : 'updated';
}

export interface ConfigureClientOptions extends CommandContext {
  client: ConfigClient;
  /** Merge the entry into the client's config file instead of only returning it. */
  write?: boolean;
  /** The server's name in the client (default: `toolpack-<folder>`). */
  name?: string;
  /** VS Code/Cursor: the project's config file instead of the user's. */
  project?: boolean;
  /** Start the server with `npx -y @toolpack/cli@<version>` (a config to share). */
  npx?: boolean;
  /** Serve with `--schema-dialect` (nothing is added for the default, portable). */
  schemaDialect?: SchemaDialect;
}

export interface ClientConfiguration {
  target: ClientConfigTarget;
  name: string;
  entry: Record<string, unknown>;
  /** What `write` did to the file; undefined when nothing was written. */
  outcome?: Awaited<ReturnType<typeof mergeServerEntry>>;
  /** Why the entry may not start (an npx entry for a package not on npm yet). */
  warnings: string[];
}

/**
 * The entry that starts `mcp serve` for the project in one client, and where it belongs;
 * with `write`, merged there. A config file that cannot be merged throws E_CONFIG.
 */
export async function configureClient(
  options: ConfigureClientOptions,
): Promise<ClientConfiguration> {
  const projectDir = path.resolve(options.cwd);
  const cli = await findCliPackage();
  const launch = resolveServerLaunch({
    projectDir,
    version: cli.version,
    binPath: cli.binPath,
    ...(options.npx ? { npx: true } : {}),
    ...(options.schemaDialect === undefined ? {} : { schemaDialect: options.schemaDialect }),
  });
  const target = findClientConfig(options.client, {
    env: options.env,
    projectDir,
    ...(options.project ? { project: true } : {}),
  });
  const name = options.name ?? defaultServerName(projectDir);
  const entry = buildServerEntry(options.client, launch);
  const warnings =
    launch.command === 'npx'
      ? [
          `${describeUnpublishedCli(cli.version)}: \`mcp config ${options.client}\` without --npx, run by that mcp, writes an entry that does.`,
        ]
      : [];
  if (!options.write) return { target, name, entry, warnings };
  return { target, name, entry, warnings, outcome: await mergeServerEntry(target, name, entry) };
}
