import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PwshCommand } from './powershell-parity-compare.ts';

const collector = fileURLToPath(
  new URL('../powershell-reader/fixtures/parity-collect.ps1', import.meta.url),
);

/** One file for parity-collect.ps1: a script, or a module (`.psm1`/`.psd1`) to import. */
export interface CollectEntry {
  kind: 'script' | 'module';
  /** Absolute. */
  path: string;
}

export interface PowerShellFacts {
  psVersion: string;
  /** `engine`: tools/pwsh-engine; `full`: a PowerShell install. */
  engine: 'engine' | 'full';
  commands: PwshCommand[];
}

/**
 * Asks one pwsh process about every entry: starting pwsh is the expensive part, so the whole
 * corpus goes through a single run of parity-collect.ps1.
 */
export async function collectPowerShellFacts(options: {
  entries: readonly CollectEntry[];
  /** A temporary folder for the list and the JSON the collector writes. */
  workDir: string;
  timeoutMs: number;
}): Promise<PowerShellFacts> {
  const listPath = join(options.workDir, 'parity-list.txt');
  const outPath = join(options.workDir, 'parity-facts.json');
  await writeFile(
    listPath,
    options.entries.map((entry) => `${entry.kind}\t${entry.path}\n`).join(''),
    'utf8',
  );
  await promisify(execFile)(
    'pwsh',
    [
      '-NoLogo',
      '-NoProfile',
      '-NonInteractive',
      '-ExecutionPolicy',
      'Bypass',
      '-File',
      collector,
      '-ListPath',
      listPath,
      '-OutPath',
      outPath,
    ],
    { timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(await readFile(outPath, 'utf8')) as PowerShellFacts;
}
