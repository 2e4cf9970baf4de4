import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

export interface WorkspacePackage {
  name: string;
  /** Folder relative to the repository root. */
  dir: string;
  /** Folders besides `dist/` the published package must carry (loaded by path at run time). */
  assets: readonly string[];
  /** Entry files every export of the published package.json must point into. */
  entries: readonly string[];
}

/** Every package another project can install, in dependency order. */
export const WORKSPACE_PACKAGES: readonly WorkspacePackage[] = [
  { name: '@toolpack/core', dir: 'packages/core', assets: [], entries: ['dist/index.mjs'] },
  {
    name: '@toolpack/containment',
    dir: 'packages/containment',
    assets: [],
    entries: ['dist/index.mjs'],
  },
  {
    name: '@toolpack/discovery',
    dir: 'packages/discovery',
    assets: ['assets/list-module-tools.mjs', 'assets/list-module-exports.ps1'],
    entries: ['dist/index.mjs'],
  },
  {
    name: '@toolpack/runners',
    dir: 'packages/runners',
    assets: ['assets/host.ps1', 'assets/warm-up/Invoke-WarmUp.ps1', 'dist/node-child-entry.mjs'],
    entries: ['dist/index.mjs'],
  },
  { name: '@toolpack/server', dir: 'packages/server', assets: [], entries: ['dist/index.mjs'] },
  {
    name: '@toolpack/packs',
    dir: 'packages/packs',
    assets: [],
    entries: ['dist/index.mjs', 'dist/testing.mjs'],
  },
  {
    name: '@toolpack/cli',
    dir: 'packages/cli',
    assets: ['bin/mcp.js'],
    entries: ['dist/index.mjs'],
  },
  {
    name: '@toolpack/registry',
    dir: 'apps/registry',
    assets: [],
    entries: ['dist/index.mjs', 'dist/cli.mjs', 'dist/testing.mjs'],
  },
];

/**
 * The environment of a plain Node process: without what vitest and pnpm add for the
 * workspace (`--conditions=@toolpack/source` would resolve packages to their sources,
 * `npm_*` variables would configure npm like the script runner that started us).
 */
export function createPlainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // pnpm's npm_* variables describe the run that started the tests, not the install a user
    // makes; the global npmrc is the user's own, where the machine's CA file is set (.ci/run
    // names it because npm run by another Node than the system's would look elsewhere).
    if (key === 'npm_config_globalconfig') {
      env[key] = value;
      continue;
    }
    if (key === 'NODE_OPTIONS' || key.startsWith('npm_') || key.startsWith('VITEST')) continue;
    if (key === 'NODE_ENV' || key === 'TEST') continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

const useShell = process.platform === 'win32';

/** Runs a package-manager command; the error carries its output, which says what failed. */
export function runCommand(options: {
  command: string;
  args: readonly string[];
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}): string {
  try {
    return execFileSync(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? createPlainEnv(),
      encoding: 'utf8',
      timeout: options.timeoutMs,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      shell: useShell,
    });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    const output = `${failure.stdout ?? ''}\n${failure.stderr ?? ''}`.trim();
    throw Object.assign(
      new Error(
        `\`${options.command} ${options.args.join(' ')}\` failed in ${options.cwd}: ${failure.message.split('\n')[0]}\n${output.slice(-4000)}`,
        { cause: error },
      ),
      { output },
    );
  }
}

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stats = statSync(target);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(target, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function hasEntries(pkg: WorkspacePackage): boolean {
  return pkg.entries.every((entry) => existsSync(path.join(repoRoot, pkg.dir, entry)));
}

/** Packages whose `dist/` is missing, or older than a file its build reads. */
export function findStaleBuilds(packages: readonly WorkspacePackage[]): WorkspacePackage[] {
  return packages.filter((pkg) => {
    const root = path.join(repoRoot, pkg.dir);
    const built = pkg.entries.map((entry) => path.join(root, entry));
    if (!hasEntries(pkg)) return true;
    const builtAt = Math.min(...built.map((file) => statSync(file).mtimeMs));
    const inputs = ['src', 'assets', 'package.json', 'tsconfig.json', 'tsdown.config.ts'];
    return inputs.some((input) => newestMtime(path.join(root, input)) > builtAt);
  });
}

export interface BuildOutcome {
  rebuilt: WorkspacePackage[];
  /** Packages still without an up-to-date dist/, with the build's output about them. */
  failed: Map<string, string>;
}

// eslint-disable-next-line no-control-regex -- ANSI colour sequences are control characters
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Builds what is missing or stale (CI's `pnpm check` builds before `pnpm test`, so there
 * this is a no-op). Turbo rebuilds only packages whose inputs changed, dependencies first;
 * with `--continue` one package that does not build leaves the others usable.
 */
export function ensureBuilt(packages: readonly WorkspacePackage[]): BuildOutcome {
  const stale = findStaleBuilds(packages);
  if (stale.length === 0) return { rebuilt: [], failed: new Map() };
  let log: string | undefined;
  try {
    runCommand({
      command: 'pnpm',
      args: [
        'exec',
        'turbo',
        'run',
        'build',
        '--continue',
        ...stale.map((pkg) => `--filter=${pkg.name}...`),
      ],
      cwd: repoRoot,
      timeoutMs: 240_000,
    });
  } catch (error) {
    const failure = error as Error & { output?: string };
    log = (failure.output ?? failure.message).replace(ANSI, '');
  }
  // After a successful build only a missing entry counts: a source saved while it ran
  // (someone editing) leaves dist/ older than it, yet as built as it gets.
  const failedPackages =
    log === undefined ? stale.filter((pkg) => !hasEntries(pkg)) : findStaleBuilds(stale);
  const failed = new Map(
    failedPackages.map((pkg) => {
      const lines = (log ?? '').split('\n').filter((line) => line.startsWith(`${pkg.name}:build:`));
      const output = lines.slice(-30).join('\n') || (log ?? '').slice(-2000);
      return [pkg.name, `${pkg.name} has no up-to-date dist/: its build failed.\n${output}`];
    }),
  );
  return { rebuilt: stale.filter((pkg) => !failedPackages.includes(pkg)), failed };
}

export interface PackedPackage {
  pkg: WorkspacePackage;
  tarball: string;
  files: string[];
}

/**
 * `pnpm pack` applies `publishConfig` and turns `workspace:` ranges into versions, so the
 * tarball is what the registry would receive.
 */
export function packPackage(pkg: WorkspacePackage, destination: string): PackedPackage {
  const output = runCommand({
    command: 'pnpm',
    args: ['pack', '--json', '--pack-destination', destination],
    cwd: path.join(repoRoot, pkg.dir),
    timeoutMs: 60_000,
  });
  const report = JSON.parse(output.slice(output.indexOf('{'))) as {
    filename: string;
    files: { path: string }[];
  };
  return {
    pkg,
    tarball: path.resolve(destination, report.filename),
    files: report.files.map((file) => file.path).sort(),
  };
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}
