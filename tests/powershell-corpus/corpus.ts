import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Where the vendored copies live: each item's folder holds its README.md and licence. */
export const fixtures = path.join(import.meta.dirname, 'fixtures');

/** One public module or script collection, vendored (trimmed) under `fixtures/<id>`. */
export interface CorpusItem {
  /** Its folder under fixtures/. */
  id: string;
  /** How the report names it. */
  title: string;
  kind: 'module' | 'scripts';
  /** The layout it stands for (the report's second column). */
  template: string;
  repository: string;
  commit: string;
  licence: string;
  /** module: the file PowerShell imports, relative to the item's folder. */
  entry?: string;
  /** scripts: the folders of scripts, relative to the item's folder. */
  scriptDirs?: () => string[];
  /** PowerShell run once, before any import, in the collector's process (a stand-in of ours). */
  prelude?: string;
}

/** Every folder below `root` (itself included) that holds a .ps1, relative to `root`, sorted. */
function foldersWithScripts(root: string): string[] {
  const folders = new Set<string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.toLowerCase().endsWith('.ps1'))
      folders.add(path.relative(root, entry.parentPath) || '.');
  }
  return [...folders].sort();
}

export const CORPUS: readonly CorpusItem[] = [
  {
    id: 'PSSlack',
    title: 'PSSlack',
    kind: 'module',
    template: '`Export-ModuleMember -Function $Public.Basename` over Public/ and Private/',
    repository: 'https://github.com/RamblingCookieMonster/PSSlack',
    commit: '1c9d6c0b810803fbf9a1c666f299ccd90e3f5bee',
    licence: 'MIT',
    entry: 'PSSlack/PSSlack.psd1',
  },
  {
    id: 'ImportExcel',
    title: 'ImportExcel',
    kind: 'module',
    template:
      '`Get-ChildItem … | ForEach-Object { . $_.FullName }` in the .psm1; MAML help (`en/ImportExcel-help.xml`)',
    repository: 'https://github.com/dfinke/ImportExcel',
    commit: '5387c061461c811d106b125588f064c4739342cb',
    licence: 'Apache-2.0 (EPPlus.dll: LGPL-2.1)',
    entry: 'ImportExcel.psd1',
  },
  {
    id: 'PSFramework',
    title: 'PSFramework',
    kind: 'module',
    template: '`. Import-ModuleFile -Path $function.FullName` (a helper function that dot-sources)',
    repository: 'https://github.com/PowershellFrameworkCollective/psframework',
    commit: '22b0070d79e4d977569b1e90ac4f0778f965e9c1',
    licence: 'MIT',
    entry: 'PSFramework/PSFramework.psd1',
  },
  {
    id: 'dbatools',
    title: 'dbatools',
    kind: 'module',
    template:
      '`foreach ($file in Get-ChildItem public -Recurse) { . $file.FullName }`, 946 files, 717 exports',
    repository: 'https://github.com/dataplat/dbatools',
    commit: 'ad86b331bfaff1b6dae2e1bf1f43229b89c96f3a',
    licence: 'MIT',
    entry: 'dbatools/dbatools.psd1',
    prelude: 'stand-in-library.ps1',
  },
  {
    id: 'PowerShellForGitHub',
    title: 'PowerShellForGitHub',
    kind: 'module',
    template: 'manifest `NestedModules` (36 .ps1 files) and a near-empty .psm1',
    repository: 'https://github.com/microsoft/PowerShellForGitHub',
    commit: 'fd4fa65f23ca30f18f85312a85348e660c287a9c',
    licence: 'MIT',
    entry: 'PowerShellForGitHub.psd1',
  },
  {
    id: 'posh-git',
    title: 'posh-git',
    kind: 'module',
    template:
      'literal `. $PSScriptRoot\\X.ps1` lines and `Export-ModuleMember @params`, with `FunctionsToExport`',
    repository: 'https://github.com/dahlbyk/posh-git',
    commit: 'bbc5ac380018239e0ac70411a59f4e367ca87f2d',
    licence: 'MIT',
    entry: 'src/posh-git.psd1',
  },
  {
    id: 'fleschutz-PowerShell',
    title: 'fleschutz/PowerShell',
    kind: 'scripts',
    template: 'a script collection: one folder of .ps1 files with comment-based help',
    repository: 'https://github.com/fleschutz/PowerShell',
    commit: '80ab66047a0f2ad64b8cb8e97371b8aaf7922ce9',
    licence: 'CC0-1.0',
    scriptDirs: () => ['scripts'],
  },
  {
    id: 'lazywinadmin-PowerShell',
    title: 'lazywinadmin/PowerShell',
    kind: 'scripts',
    template:
      'a script collection: AD, Exchange, Azure and O365 admin scripts, one folder each, `[pscredential]` parameters',
    repository: 'https://github.com/lazywinadmin/PowerShell',
    commit: 'a54cf0ecae25d5591ea62e4431a1cf924eed209e',
    licence: 'MIT',
    scriptDirs: () => foldersWithScripts(path.join(fixtures, 'lazywinadmin-PowerShell')),
  },
];

/** The item's folder. */
export function itemRoot(item: CorpusItem): string {
  return path.join(fixtures, item.id);
}
