import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  buildToolEnvironment,
  describeSandbox,
  planSandbox,
  spawnContained,
  type ContainedProcess,
  type SandboxPlan,
} from '@toolpack/containment';
import type { ToolSandbox } from '@toolpack/core';
import { resolveAsset } from '../package-assets.ts';

/** A module imports in well under this on 2 cores (dbatools, 700 functions: about 10 s). */
const DEFAULT_TIMEOUT_MS = 120_000;
/** What stdout may hold: a module printing at import must not grow this process without end. */
const MAX_STDOUT_CHARS = 16 * 1024 * 1024;

/** One function the module exports, as the engine sees it once the module is imported. */
export interface EngineExport {
  name: string;
  /** Absent: the function was made at run time (`New-Item function:`, `[scriptblock]::Create`). */
  file?: string;
  /** The first line of its definition. */
  line?: number;
  /** `function`: a `function` statement the reader finds; `scriptblock`: assigned from a block. */
  kind: 'function' | 'scriptblock';
  /** What only the engine knows of it; absent when its definition tells everything. */
  facts?: EngineFacts;
}

/**
 * Facts of one function that its file cannot tell and the engine can, once the module is
 * imported. Facts only: describeModuleFunction turns them into the tool, as it does the file.
 */
export interface EngineFacts {
  /** The parameters its `dynamicparam` block declares when run without arguments (as Get-Command runs it). */
  dynamic?: {
    /** The line of the `dynamicparam` keyword. */
    line: number;
    /** Each parameter as the param-block text that declares it: `[Parameter(Mandatory = $true)][string]$Path`. */
    parameters: string[];
    /**
     * The function's own parameters (and `PSBoundParameters`) the block reads: what it declares
     * may depend on their values, and only what it declares with none bound is known.
     */
    reads: string[];
  };
  /** Parameters typed with a compiled .NET enum (or an array of one): the enum's names. */
  enums?: EngineEnum[];
}

export interface EngineEnum {
  parameter: string;
  names: string[];
  /** A [Flags] enum: PowerShell binds a comma list of its names. */
  flags: boolean;
}

/**
 * Which functions a module exports and where each is defined, and for some of them what only
 * the engine knows (EngineFacts); their parameters are otherwise read from their definitions.
 */
export interface EngineAnswer {
  /** `$PSVersionTable.PSVersion` of the pwsh that imported it. */
  version: string;
  exports: EngineExport[];
  /** Every file the module loaded: its manifest and root module, and each function's file. */
  files: string[];
}

export type EngineReading =
  | { answer: EngineAnswer }
  | {
      error: string;
      /** `import`: pwsh ran and the module failed to import (pwsh's own message). */
      reason: 'import' | 'start' | 'timeout' | 'sandbox-required' | 'aborted';
    };

export interface ReadEngineExportsOptions {
  /** The `.psd1` or `.psm1`, absolute. */
  modulePath: string;
  pwshPath: string;
  /** The project root: a confined module's sandbox is planned against it. */
  cwd: string;
  /** A pack's (or a `sandbox: true` source's) sandbox: the import runs confined as its tools do. */
  sandbox?: ToolSandbox;
  /** With `sandbox`: where the OS sandbox cannot be had, do not import the module at all. */
  requireSandbox?: boolean;
  /** Names the importing pwsh inherits besides the default allow-list (unconfined modules). */
  envAllowList?: readonly string[];
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Imports the module once in a contained pwsh (`assets/list-module-exports.ps1`) and answers
 * which functions it exports, where each is defined, and the facts of them no file tells. Used
 * only where the static reading is not exact or needs those facts: the module's top-level code
 * runs here, with the containment its tools get.
 */
export function readEngineExports(options: ReadEngineExportsOptions): Promise<EngineReading> {
  const script = resolveAsset('list-module-exports.ps1');
  const marker = `\u0001toolpack-engine-${randomUUID()}\u0001`;
  const { sandbox, signal } = options;
  if (signal?.aborted === true)
    return Promise.resolve({ error: 'discovery was stopped', reason: 'aborted' });
  let plan: SandboxPlan | undefined;
  let contained: ContainedProcess;
  try {
    if (sandbox !== undefined) {
      if (options.requireSandbox === true) {
        const { available, reason } = describeSandbox();
        if (!available)
          return Promise.resolve({
            error: `it runs confined, the sandbox is required, and ${reason}`,
            reason: 'sandbox-required',
          });
      }
      plan = planSandbox({
        sandbox,
        projectRoot: options.cwd,
        runtimePaths: [...findPwshRuntimePaths(options.pwshPath), path.dirname(script)],
      });
    }
    const environment = buildToolEnvironment({
      source: process.env,
      ...(sandbox !== undefined
        ? { allowList: sandbox.permissions.env }
        : options.envAllowList === undefined
          ? {}
          : { allowList: options.envAllowList }),
      // No diagnostics socket, PowerShell host pipe (Enter-PSHostProcess) or telemetry from a
      // pwsh started only to read a module.
      values: {
        DOTNET_EnableDiagnostics: '0',
        POWERSHELL_DIAGNOSTICS_OPTOUT: '1',
        POWERSHELL_TELEMETRY_OPTOUT: '1',
      },
    });
    contained = spawnContained({
      command: options.pwshPath,
      args: [
        '-NoLogo',
        '-NoProfile',
        '-NonInteractive',
        ...(process.platform === 'win32' ? ['-ExecutionPolicy', 'Bypass'] : []),
        '-File',
        script,
        '-ModulePath',
        options.modulePath,
        '-Marker',
        marker,
      ],
      cwd: path.dirname(options.modulePath),
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(plan === undefined ? {} : { sandbox: plan }),
    });
  } catch (error) {
    return Promise.resolve({
      error: error instanceof Error ? error.message : String(error),
      reason: 'start',
    });
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve) => {
    const { child } = contained;
    let stdout = '';
    let stderr = '';
    let ended: EngineReading | undefined;
    const timer = setTimeout(() => {
      ended = {
        error: `it did not finish importing within ${timeoutMs / 1000} s`,
        reason: 'timeout',
      };
      contained.kill();
    }, timeoutMs);
    const abort = () => {
      ended = { error: 'discovery was stopped', reason: 'aborted' };
      contained.kill();
    };
    signal?.addEventListener('abort', abort, { once: true });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_STDOUT_CHARS) stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      ended ??= {
        error:
          error.code === 'ENOENT'
            ? `${options.pwshPath} does not exist`
            : error.code === 'EACCES'
              ? `${options.pwshPath} is not executable`
              : error.message,
        reason: 'start',
      };
    });
    child.on('close', (code, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve(ended ?? readAnswer(stdout, marker) ?? describeExit(code, exitSignal, stderr));
    });
  });
}

function readAnswer(stdout: string, marker: string): EngineReading | undefined {
  const start = stdout.lastIndexOf(marker);
  if (start < 0) return undefined;
  const line = stdout.slice(start + marker.length).split(/\r?\n/, 1)[0] ?? '';
  let parsed: {
    version?: unknown;
    error?: unknown;
    exports?: Array<{
      name?: unknown;
      file?: unknown;
      line?: unknown;
      kind?: unknown;
      dynamic?: { line?: unknown; parameters?: unknown; reads?: unknown };
      enums?: unknown;
    }>;
    files?: unknown[];
  };
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    return { error: 'pwsh answered with text that is not JSON', reason: 'start' };
  }
  if (typeof parsed.error === 'string') return { error: parsed.error, reason: 'import' };
  const exports: EngineExport[] = [];
  for (const entry of parsed.exports ?? []) {
    if (typeof entry.name !== 'string') continue;
    exports.push({
      name: entry.name,
      ...(typeof entry.file === 'string' ? { file: entry.file } : {}),
      ...(typeof entry.line === 'number' ? { line: entry.line } : {}),
      kind: entry.kind === 'function' ? 'function' : 'scriptblock',
      ...readFacts(entry),
    });
  }
  return {
    answer: {
      version: typeof parsed.version === 'string' ? parsed.version : '',
      exports,
      files: (parsed.files ?? []).filter((file): file is string => typeof file === 'string'),
    },
  };
}

function readFacts(entry: {
  dynamic?: { line?: unknown; parameters?: unknown; reads?: unknown };
  enums?: unknown;
}): { facts?: EngineFacts } {
  const facts: EngineFacts = {};
  const { dynamic } = entry;
  if (typeof dynamic?.line === 'number' && Array.isArray(dynamic.parameters))
    facts.dynamic = {
      line: dynamic.line,
      parameters: dynamic.parameters.filter((text): text is string => typeof text === 'string'),
      reads: Array.isArray(dynamic.reads)
        ? dynamic.reads.filter((name): name is string => typeof name === 'string')
        : [],
    };
  if (Array.isArray(entry.enums)) {
    const enums = (entry.enums as Array<Partial<Record<keyof EngineEnum, unknown>>>).filter(
      (item): item is EngineEnum =>
        typeof item.parameter === 'string' &&
        Array.isArray(item.names) &&
        item.names.every((name) => typeof name === 'string') &&
        typeof item.flags === 'boolean',
    );
    if (enums.length > 0) facts.enums = enums;
  }
  return facts.dynamic === undefined && facts.enums === undefined ? {} : { facts };
}

function describeExit(
  code: number | null,
  exitSignal: NodeJS.Signals | null,
  stderr: string,
): EngineReading {
  const tail = stderr
    // eslint-disable-next-line no-control-regex -- pwsh colours its error records with ANSI escapes
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trim()
    .split('\n')
    .slice(-3)
    .join(' ');
  return {
    error: `pwsh exited with ${code ?? exitSignal} before answering${tail === '' ? '' : `: ${tail}`}`,
    reason: 'start',
  };
}

/**
 * The pwsh discovery imports modules with: the one on PATH, as the runners find it (a service's
 * trimmed PATH finds none, and then the engine fallback says so).
 */
export function findPwsh(environment: NodeJS.ProcessEnv = process.env): string | undefined {
  return findOnPath(process.platform === 'win32' ? 'pwsh.exe' : 'pwsh', environment);
}

function findOnPath(name: string, environment: NodeJS.ProcessEnv): string | undefined {
  for (const directory of (environment.PATH ?? environment.Path ?? '').split(path.delimiter)) {
    if (directory === '') continue;
    const candidate = path.join(directory, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}

/**
 * What names a pwsh install for the cache, without starting it: its real path, and the size and
 * modification time of the executable and of the engine assembly beside it (an upgrade in place
 * rewrites them), so an answer of one PowerShell is never served to another.
 */
export function identifyPwsh(pwshPath: string): string {
  let real = pwshPath;
  try {
    real = realpathSync(pwshPath);
  } catch {
    // The path as given still names it.
  }
  const stamp = (file: string): string => {
    try {
      const stats = statSync(file);
      return `${stats.size}:${Math.trunc(stats.mtimeMs)}`;
    } catch {
      return '-';
    }
  };
  return [
    real,
    stamp(real),
    stamp(path.join(path.dirname(real), 'System.Management.Automation.dll')),
  ].join('|');
}

/**
 * What pwsh needs to start inside a sandbox, as the runners' PowerShell host gets it
 * (runners/src/runtime-paths.ts): the real folder of the executable, and the .NET runtime a
 * framework-dependent launcher looks for.
 */
function findPwshRuntimePaths(pwshPath: string): string[] {
  const paths: string[] = [];
  try {
    paths.push(path.dirname(realpathSync(pwshPath)));
  } catch {
    paths.push(path.dirname(pwshPath));
  }
  const dotnetRoot = process.env.DOTNET_ROOT;
  if (dotnetRoot !== undefined && path.isAbsolute(dotnetRoot) && existsSync(dotnetRoot))
    paths.push(dotnetRoot);
  const dotnet = findOnPath('dotnet', process.env);
  if (dotnet !== undefined) paths.push(path.dirname(realpathSync(dotnet)));
  if (existsSync('/etc/dotnet')) paths.push('/etc/dotnet');
  return paths;
}
