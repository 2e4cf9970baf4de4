// Only tests import this package (a private workspace devDependency); it is never published.
import { spawnSync } from 'node:child_process';

/** What the `pwsh` on PATH is, probed once per test file. */
export interface PwshEngine {
  /** `full`: a PowerShell 7 install; `engine`: tools/pwsh-engine, the engine without built-in modules. */
  readonly kind: 'full' | 'engine';
  readonly version: string;
  /** How the summary and skip reasons name it. */
  readonly description: string;
  /** The cmdlets of {@link PROBED_COMMANDS} that it offers. */
  readonly commands: ReadonlySet<string>;
}

/**
 * The module cmdlets that tests ask about. The engine launcher has none of them; a full pwsh
 * has all. Asking for a fixed list keeps the probe fast (no module enumeration).
 */
export const PROBED_COMMANDS = [
  'ConvertTo-Json',
  'ConvertFrom-Json',
  'Join-Path',
  'Get-ChildItem',
  'Get-Content',
  'Set-Content',
  'Write-Host',
  'Write-Error',
  'Write-Output',
  'Start-Sleep',
  'Add-Type',
  'Get-Date',
] as const;

export type ProbedCommand = (typeof PROBED_COMMANDS)[number];

/**
 * Marks a test title as one that runs PowerShell, so the CI summary can count them per engine.
 * Every test that starts pwsh carries it.
 */
export const PWSH_TEST_TAG = '[pwsh]';

function probe(): PwshEngine | undefined {
  const script = [
    `$found = @(Get-Command -Name ${PROBED_COMMANDS.map((c) => `'${c}'`).join(',')} -ErrorAction SilentlyContinue | ForEach-Object { $_.Name })`,
    `[Console]::Out.WriteLine($PSVersionTable.PSVersion.ToString())`,
    `[Console]::Out.WriteLine([string]$PSVersionTable['ToolpackEngine'])`,
    `[Console]::Out.WriteLine($found -join ',')`,
  ].join('; ');
  const result = spawnSync(
    'pwsh',
    ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script],
    {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (result.status !== 0 || typeof result.stdout !== 'string') return undefined;
  const [version = '', engineNote = '', found = ''] = result.stdout.split(/\r?\n/);
  const major = Number(version.split('.')[0]);
  // Toolpack's host needs 7.2 or newer; an older pwsh counts as none.
  if (!(major > 7 || (major === 7 && Number(version.split('.')[1]) >= 2))) return undefined;
  const commands = new Set(found.split(',').filter((name) => name !== ''));
  return engineNote.trim() !== ''
    ? {
        kind: 'engine',
        version,
        description: `the PowerShell engine ${version} without the built-in modules (tools/pwsh-engine)`,
        commands,
      }
    : { kind: 'full', version, description: `PowerShell ${version}`, commands };
}

/** The `pwsh` on PATH, or undefined when there is none (or one older than 7.2). */
export const pwshEngine: PwshEngine | undefined = probe();

/** Whether any PowerShell 7.2+ can run the tests. */
export const hasPwsh: boolean = pwshEngine !== undefined;

/**
 * Why a test whose tool script needs module cmdlets cannot run here, or undefined when it can:
 * `it.skipIf(needs(...) !== undefined)` with the reason in the title.
 */
export function missingCommands(...names: readonly ProbedCommand[]): string | undefined {
  if (pwshEngine === undefined) return 'needs PowerShell 7.2+ (pwsh), which is not on PATH';
  const missing = names.filter((name) => !pwshEngine.commands.has(name));
  if (missing.length === 0) return undefined;
  return `its tool script needs ${missing.join(', ')}, which ${pwshEngine.description} lacks; runs with a full pwsh`;
}
