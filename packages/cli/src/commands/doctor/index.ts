import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { prepareRuntimeFolder } from '@toolpack/containment/runtime-folder';
import { describeContainment, describeSandbox } from '@toolpack/runners';
import type { CommandContext } from '../../io.ts';
import { discoverTools } from '@toolpack/discovery';
import { MANIFEST_FILE, loadProject, type LoadProjectResult } from '@toolpack/packs';
import { describeRegistryStart } from '../../describe-registry-start.ts';
import { findUnrunnableTools, groupUnrunnableTools } from '../../find-unrunnable-tools.ts';
import { resolveSources, type ResolvedSources } from '../../source-flags.ts';
import { checkPwsh } from './check-pwsh.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One line of `mcp doctor`. */
export interface MachineCheck {
  name: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
}

/** Runs a probe command; resolves its trimmed output, or undefined when it is missing or fails. */
function probe(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: 15_000, env, windowsHide: true },
      (error, stdout, stderr) => {
        resolve(error ? undefined : `${stdout}${stderr}`.trim().split('\n')[0]);
      },
    );
  });
}

// Node 22 runs TypeScript modules without a flag from 22.18 and chokidar needs 22.22; Node
// 23's SQLite has no full-text search. Keep in step with `engines` and bin/mcp.js.
async function checkNode(): Promise<MachineCheck> {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major === 22 ? minor >= 22 : major >= 24;
  return ok
    ? { name: 'node', status: 'ok', detail: `Node ${process.version}` }
    : {
        name: 'node',
        status: 'fail',
        detail: `Node ${process.version} is not supported (Toolpack needs 24+, or 22.22+ on the 22 line)`,
        hint: 'Install Node 24 LTS, or run scripts/install-mcp.sh in a Toolpack clone: its mcp brings a Node.',
      };
}

async function checkCommand(
  name: string,
  args: string[],
  purpose: string,
  env: NodeJS.ProcessEnv,
): Promise<MachineCheck> {
  const version = await probe(name, args, env);
  return version === undefined
    ? {
        name,
        status: 'warn',
        detail: `${name} is not on PATH: ${purpose} cannot run`,
        hint: `Install ${name}, or configure another interpreter under interpreters: in toolpack.yaml.`,
      }
    : { name, status: 'ok', detail: version };
}

async function checkInterpreters(
  context: CommandContext,
  loaded: LoadProjectResult | undefined,
): Promise<MachineCheck[]> {
  const interpreters =
    loaded?.status === 'loaded' ? (loaded.project.manifest.interpreters ?? {}) : {};
  const checks: MachineCheck[] = [];
  for (const [extension, argv] of Object.entries(interpreters)) {
    const [command = ''] = argv;
    const found = await commandExists(command, context);
    checks.push(
      found
        ? { name: `interpreter ${extension}`, status: 'ok', detail: argv.join(' ') }
        : {
            name: `interpreter ${extension}`,
            status: 'fail',
            detail: `${command} (configured for ${extension} in toolpack.yaml) was not found`,
            hint: `Install ${command}, or fix interpreters.${extension} in toolpack.yaml.`,
          },
    );
  }
  return checks;
}

async function commandExists(command: string, context: CommandContext): Promise<boolean> {
  if (command.includes('/') || command.includes('\\')) {
    return stat(path.resolve(context.cwd, command)).then(
      (s) => s.isFile(),
      () => false,
    );
  }
  const dirs = (context.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const extensions =
    process.platform === 'win32' ? (context.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of dirs) {
    for (const extension of extensions) {
      if (
        await stat(path.join(dir, command + extension)).then(
          (s) => s.isFile(),
          () => false,
        )
      )
        return true;
    }
  }
  return false;
}

/**
 * One line per thing this machine lacks that a tool of the project (./toolpack.yaml) needs:
 * pwsh, an interpreter, a pack's required env variable; each names its tools.
 */
async function checkProjectTools(
  context: CommandContext,
  loaded: LoadProjectResult | undefined,
): Promise<MachineCheck[]> {
  let resolved: ResolvedSources;
  try {
    // Without a loaded project (it could not be read) this reads again, to report why.
    resolved = await resolveSources({
      sources: [],
      flags: {},
      cwd: context.cwd,
      ...(loaded === undefined ? {} : { loaded }),
    });
  } catch (error) {
    return [
      {
        name: 'tools',
        status: 'warn',
        detail: `${MANIFEST_FILE} cannot be read, so its tools were not checked`,
        hint: `mcp check shows every problem of ${MANIFEST_FILE} with its line (${(error as Error).message.split('\n')[0]})`,
      },
    ];
  }
  if (resolved.origin !== 'project') return [];
  const tools = (await discoverTools(resolved.options)).tools.filter(
    (tool) => tool.source.kind !== 'builtin',
  );
  const unrunnable = findUnrunnableTools({
    tools,
    env: context.env,
    cwd: context.cwd,
    packs: resolved.packs,
    ...(resolved.interpreters === undefined ? {} : { interpreters: resolved.interpreters }),
  });
  if (unrunnable.length === 0)
    return [{ name: 'tools', status: 'ok', detail: `all ${tools.length} tools can run here` }];
  return groupUnrunnableTools(unrunnable).map((group) => ({
    name: 'tools',
    status: 'warn',
    detail: `${group.tools.length} cannot run (${group.reason}): ${group.tools.join(', ')}`,
    hint: group.fix,
  }));
}

/** How tool and pack children are contained here (TOOLPACK_CONTAINMENT, docs/containment.md). */
function checkContainment(env: NodeJS.ProcessEnv): MachineCheck {
  const { mode, reason, usable } = describeContainment(env);
  if (!usable)
    return {
      name: 'containment',
      status: 'fail',
      detail: reason,
      hint: 'Unset TOOLPACK_CONTAINMENT or set it to process-group.',
    };
  return mode === 'namespace'
    ? { name: 'containment', status: 'ok', detail: `namespace: ${reason}` }
    : {
        name: 'containment',
        status: 'warn',
        detail: `${mode}: ${reason}`,
        hint: 'Tools can see other processes of your user (see docs/containment.md).',
      };
}

/** Whether pack tools can run confined here (bubblewrap), and what that means for this project. */
function checkSandbox(env: NodeJS.ProcessEnv, loaded: LoadProjectResult | undefined): MachineCheck {
  const { available, reason } = describeSandbox(env);
  if (available) return { name: 'sandbox', status: 'ok', detail: reason };
  const packs = loaded?.status === 'loaded' ? loaded.project.packs.length : 0;
  return {
    name: 'sandbox',
    status: 'warn',
    detail: `${reason}; ${
      packs === 0
        ? 'pack tools would run with your full rights'
        : `the tools of ${packs} installed ${packs === 1 ? 'pack run' : 'packs run'} with your full rights`
    }`,
    hint: 'On Linux install bubblewrap (e.g. apt-get install bubblewrap); --require-sandbox (or policy: requireSandbox: true) refuses to run pack tools unconfined (docs/permissions.md).',
  };
}

/** Toolpack's private runtime folder: PowerShell hosts and packs granted `temp` need it. */
function checkRuntimeFolder(env: NodeJS.ProcessEnv): MachineCheck {
  const answer = prepareRuntimeFolder(env);
  if (!('problem' in answer))
    return {
      name: 'runtime',
      status: 'ok',
      detail: `${answer.folder} (host sockets, compile cache, packs' temp folders), yours alone`,
    };
  return {
    name: 'runtime',
    status: 'fail',
    detail: `${answer.folder} cannot be used: ${answer.problem}; PowerShell tools and packs granted temp cannot run, and mcp starts without its compile cache`,
    hint: `Remove ${answer.folder} if it is not yours (or make it yours with mode 700), or set XDG_RUNTIME_DIR to a folder only you can use (docs/containment.md).`,
  };
}

async function checkCache(context: CommandContext): Promise<MachineCheck> {
  const file = path.join(context.cwd, '.toolpack', 'cache', 'discovery-v1.json');
  try {
    const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    const entries = Object.keys((JSON.parse(text) as { entries?: object }).entries ?? {}).length;
    return {
      name: 'cache',
      status: 'ok',
      detail: `${entries} parsed files cached in .toolpack/cache (${Math.round(info.size / 1024)} KB)`,
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return {
        name: 'cache',
        status: 'ok',
        detail: 'no discovery cache yet (the first mcp list or mcp serve makes one)',
      };
    }
    return {
      name: 'cache',
      status: 'warn',
      detail: `.toolpack/cache is unreadable: ${(error as Error).message}`,
      hint: 'Delete .toolpack/cache; it is rebuilt on the next run.',
    };
  }
}

async function checkRegistry(context: CommandContext): Promise<MachineCheck> {
  const registry = context.env.TOOLPACK_REGISTRY ?? 'http://127.0.0.1:4873';
  if (!/^https?:\/\//.test(registry)) {
    const exists = await stat(path.resolve(context.cwd, registry)).then(
      (s) => s.isDirectory(),
      () => false,
    );
    return exists
      ? { name: 'registry', status: 'ok', detail: `folder registry ${registry}` }
      : {
          name: 'registry',
          status: 'warn',
          detail: `folder registry ${registry} does not exist`,
          hint: 'Set TOOLPACK_REGISTRY to a registry URL or a folder of packs.',
        };
  }
  const url = new URL('/v0/packs?limit=1', registry);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return response.ok
      ? { name: 'registry', status: 'ok', detail: `${registry} answers` }
      : {
          name: 'registry',
          status: 'warn',
          detail: `${registry} answered ${response.status}`,
          hint: 'Check TOOLPACK_REGISTRY.',
        };
  } catch (error) {
    return {
      name: 'registry',
      status: 'warn',
      detail: `${registry} is not reachable (${(error as Error).message})`,
      hint:
        (await describeRegistryStart(registry)) ??
        'Check TOOLPACK_REGISTRY, or set it to a folder of packs; `mcp pack` commands also take --registry DIR.',
    };
  }
}

/** What `mcp doctor --json` prints; the doctor fails when any check does. */
export interface MachineReport {
  checks: MachineCheck[];
}

/**
 * What running tools needs here: Node, pwsh, Python, bash, the configured interpreters, which
 * project tools cannot run here, containment, the sandbox, the cache, the registry.
 */
export async function checkMachine(options: CommandContext): Promise<MachineReport> {
  const { env } = options;
  const loaded = await loadProject(options.cwd).catch(() => undefined);
  const checks = [
    await checkNode(),
    ...(await Promise.all([
      checkPwsh(env),
      checkCommand('python3', ['--version'], '.py tools', env),
      checkCommand('bash', ['--version'], '.sh tools', env),
    ])),
    ...(await checkInterpreters(options, loaded)),
    ...(await checkProjectTools(options, loaded)),
    checkContainment(env),
    checkSandbox(env, loaded),
    checkRuntimeFolder(env),
    await checkCache(options),
    await checkRegistry(options),
  ];
  return { checks };
}
