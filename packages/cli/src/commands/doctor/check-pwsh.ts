import { execFile } from 'node:child_process';

export interface PwshCheck {
  name: 'pwsh';
  status: 'ok' | 'warn';
  detail: string;
  hint?: string;
}

const INSTALL =
  '`dotnet tool install --global PowerShell`, `winget install Microsoft.PowerShell`, `brew install powershell/tap/powershell`, or see https://aka.ms/install-powershell';

const PWSH_HINT = `Install PowerShell 7 to run PowerShell tools: ${INSTALL}.`;

// Prints the version, then the key only tools/pwsh-engine (Toolpack's test launcher on the
// bare engine package) sets: a full pwsh prints an empty line there.
const PROBE_SCRIPT =
  "[Console]::Out.WriteLine($PSVersionTable.PSVersion.ToString()); [Console]::Out.WriteLine([string]$PSVersionTable['ToolpackEngine'])";

/** What the `pwsh` on PATH answered, or undefined when there is none or it failed. */
export interface PwshProbe {
  version: string;
  /** `$PSVersionTable.ToolpackEngine`: set only by the engine without the built-in modules. */
  engineNote: string;
}

/** Reads what the probe answered into the doctor's line for pwsh. */
export function describePwsh(found: PwshProbe | undefined): PwshCheck {
  if (found === undefined) {
    return {
      name: 'pwsh',
      status: 'warn',
      detail:
        'PowerShell 7 (pwsh) is not on PATH: PowerShell tools cannot run (listing them works)',
      hint: PWSH_HINT,
    };
  }
  const { version } = found;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (!(major > 7 || (major === 7 && minor >= 2))) {
    return {
      name: 'pwsh',
      status: 'warn',
      detail: `PowerShell ${version} is older than 7.2, which the host needs`,
      hint: PWSH_HINT,
    };
  }
  if (found.engineNote !== '') {
    return {
      name: 'pwsh',
      status: 'warn',
      detail: `PowerShell engine without the built-in modules (${version}): tools that call module cmdlets such as ConvertTo-Json, Join-Path or Get-ChildItem fail`,
      hint: `Tools that use module cmdlets need a full PowerShell 7.2+ on PATH: ${INSTALL}.`,
    };
  }
  return { name: 'pwsh', status: 'ok', detail: `PowerShell ${version}` };
}

/** Asks the `pwsh` on PATH (in `env`) what it is. */
export function probePwsh(env: NodeJS.ProcessEnv): Promise<PwshProbe | undefined> {
  return new Promise((resolve) => {
    execFile(
      'pwsh',
      ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', PROBE_SCRIPT],
      { timeout: 15_000, env, windowsHide: true },
      (error, stdout) => {
        if (error) return resolve(undefined);
        const [version = '', engineNote = ''] = stdout.split(/\r?\n/).map((line) => line.trim());
        resolve(version === '' ? undefined : { version, engineNote });
      },
    );
  });
}

export async function checkPwsh(env: NodeJS.ProcessEnv): Promise<PwshCheck> {
  return describePwsh(await probePwsh(env));
}
