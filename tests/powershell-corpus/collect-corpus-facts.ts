import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type {
  CollectEntry,
  PowerShellFacts,
} from '../../packages/discovery/src/testing/collect-powershell-facts.ts';

/** The parity collector of the PowerShell reader, with what public modules add (MAML help, stand-ins). */
const collector = path.join(import.meta.dirname, 'corpus-collect.ps1');

/**
 * HOME, TEMP and the XDG folders inside `workDir`, created: importing these modules writes
 * configuration and log files there (PSSlack a `~/.psslack`, PSFramework its logs).
 */
export function isolatedHome(workDir: string): Record<string, string> {
  const home = path.join(workDir, 'home');
  const folders = {
    HOME: home,
    TMPDIR: path.join(home, 'tmp'),
    TEMP: path.join(home, 'tmp'),
    TMP: path.join(home, 'tmp'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  // .NET's GetFolderPath answers '' for a folder that does not exist, and some modules build
  // their log paths from it.
  for (const folder of [...Object.values(folders), path.join(home, 'Documents')])
    mkdirSync(folder, { recursive: true });
  return folders;
}

/**
 * Asks one pwsh process about the whole corpus, as parity.test.ts does for the repository's own
 * files, after running `preludes` (stand-ins for binary dependencies that cannot be vendored)
 * in that process, with its home in `workDir` (isolatedHome).
 */
export async function collectCorpusFacts(options: {
  entries: readonly CollectEntry[];
  preludes: readonly string[];
  workDir: string;
  timeoutMs: number;
}): Promise<PowerShellFacts> {
  const listPath = path.join(options.workDir, 'corpus-list.txt');
  const outPath = path.join(options.workDir, 'corpus-facts.json');
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
      ...(options.preludes.length > 0 ? ['-Prelude', options.preludes.join(path.delimiter)] : []),
    ],
    {
      timeout: options.timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...isolatedHome(options.workDir) },
    },
  );
  return JSON.parse(await readFile(outPath, 'utf8')) as PowerShellFacts;
}
