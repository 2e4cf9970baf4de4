import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMcp } from './testing/run-mcp.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const examples = path.join(repo, 'examples');
const fixtures = path.join(import.meta.dirname, 'fixtures');

const mcp = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  runMcp(args, { cwd, env: { ...process.env, ...env } });

const conventions = [
  'dotbot-tools',
  'powershell-scripts',
  'powershell-module',
  'js-tools',
  'scripts',
  'basic',
  'workflows',
];

describe('mcp list over examples/', () => {
  it.each(conventions)('%s lists exactly the expected tools, schemas and diagnostics', (name) => {
    const dir = path.join(examples, name);
    const { code, stdout, stderr } = mcp(['list', '--json', '--no-cache'], dir);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // What this machine cannot run (pwsh, an interpreter) is about the machine, not the listing.
    const { cannotRunHere, ...listing } = JSON.parse(stdout) as { cannotRunHere: unknown };
    expect(Array.isArray(cannotRunHere)).toBe(true);
    expect(listing).toEqual(JSON.parse(readFileSync(path.join(dir, 'expected-list.json'), 'utf8')));
  });

  it('lists every convention side by side from examples/toolpack.yaml (-C)', () => {
    const { code, stdout } = mcp(['-C', 'examples', 'list', '--json', '--no-cache'], repo);
    expect(code).toBe(0);
    const { cannotRunHere: _machine, ...report } = JSON.parse(stdout) as {
      tools: { name: string; source: { kind: string } }[];
      cannotRunHere: unknown;
    };
    expect(report).toEqual(
      JSON.parse(readFileSync(path.join(examples, 'expected-list.json'), 'utf8')),
    );
    expect(new Set(report.tools.map((t) => t.source.kind))).toEqual(
      new Set(['builtin', 'tool-folder', 'script', 'ps-module', 'js-module', 'basic', 'workflow']),
    );
  });

  it('prints a table with name, kind, source, description and problems', () => {
    const { code, stdout } = mcp(['list'], path.join(examples, 'powershell-scripts'));
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+KIND\s+SOURCE\s+DESCRIPTION\s+PROBLEMS$/);
    expect(stdout).toMatch(
      /New_Greeting\s+script\s+New-Greeting\.ps1:7\s+Writes a greeting in the chosen language\./,
    );
    expect(stdout).toContain('5 tools');
  });

  it('takes sources from flags in command-line order, with include/exclude and prefix', () => {
    const { code, stdout } = mcp(
      [
        'list',
        '--json',
        '--no-cache',
        '--module',
        'powershell-module/Widgets/Widgets.psd1',
        '--script-root',
        'scripts',
        '--prefix',
        '--include',
        'Get-*',
        '--include',
        '*slug*',
      ],
      examples,
    );
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
      'Widgets_Get_Widget',
      'scripts_slugify',
    ]);
  });

  it('serves the built-ins alone, and says so, when there is no source at all', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'toolpack-empty-'));
    try {
      const { code, stdout, stderr } = mcp(['list', '--json'], empty);
      expect(code).toBe(0);
      expect(stderr).toMatch(/No sources/);
      expect(
        (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name),
      ).toEqual(['find_tools', 'describe_tool']);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('mcp check', () => {
  it('exits 0 for clean sources', () => {
    const { code, stdout } = mcp(['check'], path.join(examples, 'powershell-scripts'));
    expect(stdout).toContain('0 errors');
    expect(code).toBe(0);
  });

  it('exits 1 and explains each error with its fix while the good tools still load', () => {
    const { code, stdout } = mcp(['check', '--no-cache'], path.join(fixtures, 'broken-scripts'));
    expect(code).toBe(1);
    expect(stdout).toMatch(/Set-Thing\.ps1:5: error E_PARAMETER_NO_DESCRIPTION: .*\$Name/);
    expect(stdout).toMatch(/fix: Add "\.PARAMETER Name"/);
    expect(stdout).toContain('3 tools checked: 2 errors');
    const list = mcp(['list', '--json', '--no-cache'], path.join(fixtures, 'broken-scripts'));
    expect(list.code).toBe(0);
    expect(
      (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name),
    ).toContain('Get_Thing');
  });

  it('serves tools with undescribed parameters under --lenient-help or lenientHelp: true', () => {
    const source = path.join(fixtures, 'lenient-help');
    const names = (stdout: string) =>
      (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    const strict = mcp(['check', '--no-cache'], source);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/fix: .*lenientHelp: true in toolpack\.yaml, or --lenient-help/);
    expect(names(mcp(['list', '--json', '--no-cache'], source).stdout)).not.toContain('Copy_Items');
    const flagged = mcp(['check', '--no-cache', '--lenient-help'], source);
    expect(flagged.code).toBe(0);
    expect(flagged.stdout).toMatch(/Copy-Items\.ps1:11: warning W_PARAMETER_NO_DESCRIPTION/);
    expect(names(mcp(['list', '--json', '--no-cache', '--lenient-help'], source).stdout)).toContain(
      'Copy_Items',
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-lenient-'));
    try {
      cpSync(source, dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'toolpack.yaml'),
        'lenientHelp: true\nsources:\n  - scripts: .\n',
      );
      expect(names(mcp(['list', '--json'], dir).stdout)).toContain('Copy_Items');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('turns collisions into errors with --strict', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-strict-'));
    try {
      cpSync(path.join(examples, 'scripts', 'slugify.mjs'), path.join(dir, 'a', 'slugify.mjs'), {
        recursive: true,
      });
      cpSync(path.join(examples, 'scripts', 'slugify.mjs'), path.join(dir, 'b', 'slugify.mjs'), {
        recursive: true,
      });
      expect(mcp(['check', '--script-root', 'a', '--script-root', 'b'], dir).code).toBe(0);
      const strict = mcp(['check', '--script-root', 'a', '--script-root', 'b', '--strict'], dir);
      expect(strict.code).toBe(1);
      expect(strict.stdout).toContain('E_COLLISION');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('usage errors exit 2 with one sentence and a hint', () => {
  it('a missing source', () => {
    const { code, stderr } = mcp(['list', '--script-root', 'does-not-exist'], examples);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'error Script root does-not-exist does not exist.\nhint: Point --script-root (or `scripts:` in toolpack.yaml) at a folder of scripts.\n',
    );
  });

  it('an unknown flag, a bad number', () => {
    expect(mcp(['list', '--bogus'], examples).code).toBe(2);
    expect(mcp(['list', '--max-tools', 'many'], examples).code).toBe(2);
  });

  it('a broken toolpack.yaml, naming the problem', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-manifest-'));
    try {
      writeFileSync(path.join(dir, 'toolpack.yaml'), 'sources:\n  - script: .\n');
      const { code, stderr } = mcp(['list'], dir);
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /toolpack\.yaml:2: error E_MANIFEST_FIELD: sources\.0: unknown key "script" \(a source is one of tools:, scripts:, module:, workflows:/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help shows examples and exit codes; --version prints the version', () => {
    const help = mcp(['list', '--help'], examples);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('Exit codes:');
    expect(mcp(['--version'], examples).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('the discovery cache', () => {
  it('is used on the second run and never serves a stale definition after an edit', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-cache-e2e-'));
    try {
      cpSync(path.join(examples, 'powershell-scripts'), dir, { recursive: true });
      const first = JSON.parse(mcp(['list', '--json'], dir).stdout) as {
        tools: { name: string; description: string }[];
      };
      expect(first.tools.find((t) => t.name === 'New_Greeting')?.description).toBe(
        'Writes a greeting in the chosen language.',
      );
      const file = path.join(dir, 'New-Greeting.ps1');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace('Writes a greeting', 'Writes a warm greeting'),
      );
      const second = JSON.parse(mcp(['list', '--json'], dir).stdout) as {
        tools: { name: string; description: string }[];
      };
      expect(second.tools.find((t) => t.name === 'New_Greeting')?.description).toBe(
        'Writes a warm greeting in the chosen language.',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
