import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DiscoveredTool, SecretSource } from '@toolpack/core';
import type { InstalledPack } from '@toolpack/packs';
import { getDefaultInterpreters } from '@toolpack/runners';
import { findOnPath } from './find-on-path.ts';

/**
 * A tool that is listed and valid but cannot run on this machine. Not a diagnostic: the
 * project is fine, the machine lacks something, so `mcp check` still exits 0 (a project
 * checked in CI without pwsh must not fail for a PowerShell tool it never calls there).
 */
export interface UnrunnableTool {
  tool: string;
  /** The file that defines the tool, as the tool's source gives it. */
  path: string;
  line?: number;
  /** What is missing here: "PowerShell 7 (pwsh) is not on PATH". */
  reason: string;
  /** How to make it runnable. */
  fix: string;
}

export interface FindUnrunnableToolsOptions {
  tools: readonly DiscoveredTool[];
  /** The environment tools would be started with (PATH, a pack's variables). */
  env: NodeJS.ProcessEnv;
  /** Folder relative interpreter commands are resolved against (the project). */
  cwd: string;
  /**
   * Extension -> argv from toolpack.yaml, over the defaults: the project's own tools'. A
   * pack's tools are judged by their own (`tool.source.interpreters`), as they run.
   */
  interpreters?: Readonly<Record<string, readonly string[]>>;
  /** Installed packs: a pack's required env variables must be set for its tools. */
  packs?: readonly Pick<InstalledPack, 'alias' | 'name' | 'env'>[];
}

const INSTALL_PWSH =
  'Install PowerShell 7.2+ (`dotnet tool install --global PowerShell`, `winget install Microsoft.PowerShell`, `brew install powershell/tap/powershell`, or https://aka.ms/install-powershell) and put pwsh on PATH.';

/** Each tool that cannot run with what this machine has, and why, in the order given. */
export function findUnrunnableTools(options: FindUnrunnableToolsOptions): UnrunnableTool[] {
  const readMap = (configured: Readonly<Record<string, readonly string[]>> | undefined) => {
    const map = new Map<string, readonly string[]>();
    for (const [extension, argv] of Object.entries({ ...getDefaultInterpreters(), ...configured }))
      map.set(extension.toLowerCase(), argv);
    return map;
  };
  const interpreters = readMap(options.interpreters);
  const found = new Map<string, boolean>();
  const isInstalled = (command: string): boolean => {
    let known = found.get(command);
    if (known === undefined) {
      known =
        command.includes('/') || command.includes('\\')
          ? findOnPath(path.basename(command), {
              ...options.env,
              PATH: path.dirname(path.resolve(options.cwd, command)),
            }) !== undefined
          : findOnPath(command, options.env) !== undefined;
      found.set(command, known);
    }
    return known;
  };
  const packs = new Map((options.packs ?? []).map((pack) => [pack.alias, pack]));

  const blocked = new Map<string, Omit<UnrunnableTool, 'tool' | 'path' | 'line'>>();
  const explain = (
    tool: DiscoveredTool,
  ): Omit<UnrunnableTool, 'tool' | 'path' | 'line'> | undefined => {
    const pack = tool.source.pack === undefined ? undefined : packs.get(tool.source.pack);
    const unset = (pack?.env ?? []).filter(
      (e) => e.required && (options.env[e.name] === undefined || options.env[e.name] === ''),
    );
    if (pack !== undefined && unset.length > 0) {
      const names = unset.map((e) => e.name).join(', ');
      return {
        reason: `the pack ${pack.alias} (${pack.name}) requires ${names}, which ${unset.length === 1 ? 'is' : 'are'} not set`,
        fix: `Set ${names} in the environment the server starts with (for a client, in its server entry's env).`,
      };
    }
    const invocation = tool.invocation;
    const secrets = findMissingSecrets(tool, options.env);
    if (secrets.length > 0)
      return {
        reason: `the credentials the server binds for it come from ${secrets.join(', ')}, which ${secrets.length === 1 ? 'is' : 'are'} missing`,
        fix: 'Set each variable (or write each file) where the server starts; toolpack.yaml credentials: names them (docs/powershell-scripts.md#credentials).',
      };
    if (
      invocation.runner === 'pwsh' &&
      !isInstalled(process.platform === 'win32' ? 'pwsh.exe' : 'pwsh')
    )
      return { reason: 'PowerShell 7 (pwsh) is not on PATH', fix: INSTALL_PWSH };
    if (invocation.runner === 'process') {
      const extension = (invocation.extension || path.extname(invocation.scriptPath)).toLowerCase();
      const own = tool.source.pack === undefined ? interpreters : readMap(tool.source.interpreters);
      const argv = own.get(extension.startsWith('.') ? extension : `.${extension}`);
      const [command] = argv ?? [];
      if (command === undefined)
        return {
          reason: `no interpreter is configured for ${extension} files`,
          fix:
            tool.source.pack === undefined
              ? `Add interpreters: { "${extension}": ["your-interpreter", "--run"] } to toolpack.yaml (the script path is appended).`
              : `A pack's tools run only with its own interpreters, as toolpack.lock approved them: run mcp pack install to review one the pack declares, or ask its publisher to declare one.`,
        };
      if (!isInstalled(command))
        return {
          reason: `${command}, the interpreter for ${extension} files, is not on PATH`,
          fix: `Install ${command}, or set another under interpreters: { "${extension}": [...] } in toolpack.yaml.`,
        };
    }
    if (invocation.runner === 'workflow') {
      const steps = [...new Set(invocation.workflow.steps.map((s) => s.tool))].filter((name) =>
        blocked.has(name),
      );
      if (steps.length > 0)
        return {
          reason: `its steps call tools that cannot run here (${steps.join(', ')})`,
          fix: 'Make those tools runnable (see the lines above).',
        };
    }
    return undefined;
  };
  // Workflows last: whether one can run depends on the tools its steps call.
  const ordered = [
    ...options.tools.filter((t) => t.invocation.runner !== 'workflow'),
    ...options.tools.filter((t) => t.invocation.runner === 'workflow'),
  ];
  for (const tool of ordered) {
    const why = explain(tool);
    if (why !== undefined) blocked.set(tool.name, why);
  }
  return options.tools.flatMap((tool) => {
    const why = blocked.get(tool.name);
    if (why === undefined) return [];
    return [
      {
        tool: tool.name,
        path: tool.source.path,
        ...(tool.source.line === undefined ? {} : { line: tool.source.line }),
        ...why,
      },
    ];
  });
}

/** The environment variables and files a tool's server-bound credentials read that are not there. */
function findMissingSecrets(tool: DiscoveredTool, env: NodeJS.ProcessEnv): string[] {
  const invocation = tool.invocation;
  if (invocation.runner !== 'pwsh' || invocation.mode === 'tool-folder') return [];
  const missing = new Set<string>();
  for (const credential of invocation.credentials ?? []) {
    for (const source of [credential.username, credential.password]) {
      if (typeof source !== 'object') continue;
      if (isMissing(source, env))
        missing.add('env' in source ? source.env : `the file ${source.file}`);
    }
  }
  return [...missing];
}

function isMissing(source: SecretSource, env: NodeJS.ProcessEnv): boolean {
  if ('env' in source) return env[source.env] === undefined || env[source.env] === '';
  const home = env.HOME ?? os.homedir();
  const file =
    source.file === '~' || source.file.startsWith('~/')
      ? path.join(home, source.file.slice(1))
      : source.file;
  return !existsSync(file);
}

export interface UnrunnableGroup {
  reason: string;
  fix: string;
  tools: string[];
}

/** The tools grouped by what they lack, so ten PowerShell tools share one reason and one fix. */
export function groupUnrunnableTools(entries: readonly UnrunnableTool[]): UnrunnableGroup[] {
  const groups = new Map<string, UnrunnableGroup>();
  for (const entry of entries) {
    const key = `${entry.reason}\n${entry.fix}`;
    const group = groups.get(key) ?? { reason: entry.reason, fix: entry.fix, tools: [] };
    group.tools.push(entry.tool);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * The text `list`, `check` and `serve` print: a heading, then per missing thing its tools
 * and its fix (`paint` colours it for a terminal). Empty when every tool can run.
 */
export function renderUnrunnableTools(
  entries: readonly UnrunnableTool[],
  options: {
    total: number;
    indent?: string;
    paint?: (kind: 'yellow' | 'dim', text: string) => string;
    /** What the tools come from: a project (the default), or packs served without one (`serve --pack`). */
    servedFrom?: 'project' | 'packs';
  },
): string[] {
  if (entries.length === 0) return [];
  const indent = options.indent ?? '';
  const paint = options.paint ?? ((_kind: string, text: string) => text);
  const fine = options.servedFrom === 'packs' ? 'the packs are fine' : 'the project is fine';
  const lines = [
    `${indent}${entries.length} of ${options.total} ${options.total === 1 ? 'tool' : 'tools'} cannot run on this machine (${fine}; the machine lacks something):`,
  ];
  for (const group of groupUnrunnableTools(entries)) {
    lines.push(`${indent}  ${paint('yellow', `${group.reason}: ${group.tools.join(', ')}`)}`);
    lines.push(`${indent}    ${paint('dim', `fix: ${group.fix}`)}`);
  }
  return lines;
}
