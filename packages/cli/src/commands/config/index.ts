import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { ToolpackError, isToolpackError } from '@toolpack/core';
import { EXIT_OK, EXIT_USAGE } from '../../exit-codes.ts';
import { findCliPackage } from '../../find-cli-package.ts';
import { createPainter, type CliIo } from '../../io.ts';

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
}

interface ConfigFlags {
  write?: boolean;
  name?: string;
  project?: boolean;
  npx?: boolean;
}

function parseClient(value: string): ConfigClient {
  const client = value.toLowerCase();
  if (!(CONFIG_CLIENTS as readonly string[]).includes(client)) {
    throw new InvalidArgumentError(`expected one of ${CONFIG_CLIENTS.join(', ')}.`);
  }
  return client as ConfigClient;
}

function parseName(value: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value))
    throw new InvalidArgumentError('use letters, digits, "_", "-" or "." (at most 64).');
  return value;
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
    };
  }
  return {
    file: options.project
      ? path.join(options.projectDir, '.cursor', 'mcp.json')
      : path.join(home, '.cursor', 'mcp.json'),
    container: 'mcpServers',
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
}): ServerLaunch {
  const { binPath } = options;
  const serveArgs = ['-C', options.projectDir, 'serve'];
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
    text = await readFile(target.file, 'utf8');
  } catch (error) {
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
  // Write beside and rename, so a crash never leaves the client with half a file.
  const temporary = `${target.file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, 'utf8');
  await rename(temporary, target.file);
  return existing === undefined ? 'added' : 'updated';
}

export function createConfigCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('config')
    .description(
      'Print (or --write) the JSON that registers `mcp serve` for this project with a client',
    )
    .argument('<client>', `one of ${CONFIG_CLIENTS.join(', ')}`, parseClient)
    .option('--write', 'merge the entry into the client’s config file (other servers are kept)')
    .option(
      '--name <name>',
      'the server’s name in the client (default: toolpack-<folder>)',
      parseName,
    )
    .option('--project', 'VS Code/Cursor: use the project’s .vscode/mcp.json or .cursor/mcp.json')
    .option('--npx', 'start the server with `npx -y @toolpack/cli@<version>` (a config to share)');
  command.addHelpText(
    'after',
    `
Examples:
  mcp config claude                # print the entry for Claude Desktop
  mcp config claude --write        # add it to claude_desktop_config.json
  mcp config vscode --project --write
  mcp -C ~/work/jira-tools config cursor --write --name jira

Exit codes: 0 printed or written, 2 an unknown client or a config file that is not valid JSON.`,
  );
  command.action(async (client: ConfigClient, flags: ConfigFlags) => {
    const projectDir = path.resolve(io.cwd);
    const cli = await findCliPackage();
    const launch = resolveServerLaunch({
      projectDir,
      version: cli.version,
      binPath: cli.binPath,
      ...(flags.npx ? { npx: true } : {}),
    });
    const target = findClientConfig(client, {
      env: io.env,
      projectDir,
      ...(flags.project ? { project: true } : {}),
    });
    const name = flags.name ?? defaultServerName(projectDir);
    const entry = buildServerEntry(client, launch);
    const paint = createPainter(io.stderr, io.env);
    if (!flags.write) {
      io.stdout.write(`${JSON.stringify({ [target.container]: { [name]: entry } }, null, 2)}\n`);
      io.stderr.write(
        `${paint('dim', `Add this to ${target.file}, or run again with --write to merge it there.`)}\n`,
      );
      done(EXIT_OK);
      return;
    }
    let outcome: Awaited<ReturnType<typeof mergeServerEntry>>;
    try {
      outcome = await mergeServerEntry(target, name, entry);
    } catch (error) {
      if (!isToolpackError(error) || error.code !== 'E_CONFIG') throw error;
      io.stderr.write(`${paint('red', 'error')} ${error.message}\n`);
      if (error.hint !== undefined) io.stderr.write(`${paint('dim', `hint: ${error.hint}`)}\n`);
      done(EXIT_USAGE);
      return;
    }
    io.stderr.write(
      outcome === 'unchanged'
        ? `${target.file} already has ${name}; nothing to do.\n`
        : `${outcome === 'added' ? 'Added' : 'Updated'} ${name} in ${target.file}. Restart the client to pick it up.\n`,
    );
    done(EXIT_OK);
  });
  return command;
}
