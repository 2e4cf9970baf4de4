// The typos a newcomer's tools passed `mcp check` with (issue 33, item 4), walked as they met
// them: the `mcp` that scripts/install-mcp.sh installs, run in a NEW bash that has only HOME
// and a plain PATH (no pwsh needed: these are read, not run), in a project of their own.
// Each step asserts what the user reads: the file and line, the code, and the word meant.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const posix = process.platform !== 'win32';

let work = '';
let prefix = '';
let home = '';
let project = '';
let installed: SpawnSyncReturns<string>;

/** `command` in a new bash in the project: HOME, the install's bin and the system PATH only. */
function inNewShell(command: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    'env',
    [
      '-i',
      `HOME=${home}`,
      `PATH=${prefix}/bin:/usr/bin:/bin`,
      'bash',
      '--norc',
      '--noprofile',
      '-c',
      command,
    ],
    { cwd: project, encoding: 'utf8', timeout: 90_000 },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const projectFile = (name: string) => path.join(project, name);

beforeAll(() => {
  if (!posix) return;
  work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-typos-'));
  home = path.join(work, 'home');
  prefix = path.join(work, 'prefix');
  project = path.join(home, 'project');
  mkdirSync(project, { recursive: true });
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  installed = spawnSync('bash', [path.join(root, 'scripts/install-mcp.sh'), '--prefix', prefix], {
    cwd: work,
    encoding: 'utf8',
    env,
    timeout: 280_000,
  });
}, 300_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!posix)('a newcomer’s typos, in a new bash [needs a POSIX shell]', () => {
  it('installs mcp with scripts/install-mcp.sh', () => {
    expect(installed.status, installed.stderr).toBe(0);
  });

  it('a tool left with the placeholder of mcp new fails the check until it is described', () => {
    const created = inNewShell('mcp new tool set-mode --kind script --lang ps1');
    expect(created.code, created.stderr).toBe(0);
    const checked = inNewShell('mcp check');
    expect(checked.stdout).toMatch(
      /set[-_]mode\.ps1:\d+: error E_PLACEHOLDER_DESCRIPTION: The tool \w+ still has the description mcp new wrote as a placeholder/i,
    );
    expect(checked.code).toBe(1);
    const file = readdirScript('.ps1');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(/; say here in one sentence what \w+ does\./, '.'),
    );
    const fixed = inNewShell('mcp check');
    expect(fixed.stdout).toMatch(/tools checked: 0 errors/);
    expect(fixed.code).toBe(0);
  });

  it('a misspelled parameter type ([strin]) is an error at its line with the type meant', () => {
    const file = readdirScript('.ps1');
    const text = readFileSync(file, 'utf8');
    const typed = text.replace(/\[string\]\$Text/, '[strin]$Text');
    expect(typed).not.toBe(text);
    writeFileSync(file, typed);
    const checked = inNewShell('mcp check');
    // At the parameter's line: its first attribute's or its own, as the reader places it.
    const at = /(\S+\.ps1):(\d+): error E_UNRESOLVED_TYPE: (.*)/.exec(checked.stdout);
    expect(at?.[1]).toBe(path.basename(file));
    const line = Number(at?.[2]);
    expect(
      typed
        .split('\n')
        .slice(line - 1, line + 2)
        .join('\n'),
    ).toContain('$Text');
    expect(at?.[3]).toContain(
      'Parameter $Text of the script has the type [strin], which names no type PowerShell knows',
    );
    expect(checked.stdout).toContain('fix: Did you mean [string]? Correct the spelling.');
    expect(checked.code).toBe(1);
    writeFileSync(file, text);
  });

  it('a misspelled help keyword (.SYNOPSYS) names the keyword meant', () => {
    const file = readdirScript('.ps1');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('.SYNOPSIS', '.SYNOPSYS'));
    const checked = inNewShell('mcp check');
    expect(checked.stdout).toMatch(
      /error E_NO_DESCRIPTION: The script has no description: PowerShell ignores the help block at line \d+ because "\.SYNOPSYS" is not a comment-based help keyword \(did you mean \.SYNOPSIS\?\)/,
    );
    expect(checked.stdout).toContain('fix: Did you mean .SYNOPSIS?');
    expect(checked.code).toBe(1);
    writeFileSync(file, text);
  });

  it('a misspelled header keyword (# PARM) is a warning naming PARAM, not silence', () => {
    writeFileSync(
      projectFile('word_count.sh'),
      '#!/usr/bin/env bash\n# DESCRIPTION "Counts the words of a text."\n# PARM text AS string DESCRIPTION "The text."\nwc -w\n',
      { mode: 0o755 },
    );
    const checked = inNewShell('mcp check');
    expect(checked.stdout).toContain(
      'word_count.sh:3: warning W_MISSPELLED_KEYWORD: The header line "PARM text AS string DESCRIPTION \\"The text.\\"" starts with "PARM", which is no header keyword, so the line is ignored.',
    );
    expect(checked.stdout).toContain('fix: Did you mean PARAM? Correct the keyword.');
    expect(checked.code).toBe(0);
  });
});

/** The one script of `extension` mcp new wrote into the project (its test file aside). */
function readdirScript(extension: string): string {
  const listed = readdirSync(project);
  const name = listed.find((entry) => entry.endsWith(extension) && !/\.tests?\./i.test(entry));
  if (name === undefined) throw new Error(`no ${extension} script in ${listed.join(', ')}`);
  return projectFile(name);
}
