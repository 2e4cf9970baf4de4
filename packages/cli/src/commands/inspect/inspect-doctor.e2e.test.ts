import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pwshEngine, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { runMcp } from '../../testing/run-mcp.ts';

const examples = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', 'examples');

const mcp = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  runMcp(args, { cwd, env: { ...process.env, ...env } });

describe('mcp inspect', () => {
  it('shows a tool as a client sees it: parameters, hints, source file and line', () => {
    const { code, stdout } = mcp(
      ['inspect', 'New_Greeting', '--no-cache'],
      path.join(examples, 'powershell-scripts'),
    );
    expect(code).toBe(0);
    expect(stdout).toContain('New_Greeting\nWrites a greeting in the chosen language.\n');
    expect(stdout).toContain('source   script New-Greeting.ps1:7\n');
    expect(stdout).toContain('hints    readOnlyHint: true\n');
    expect(stdout).toMatch(/Name\s+string\s+yes\s+minLength 1, maxLength 40\s+Who to greet\./);
    expect(stdout).toMatch(
      /Language\s+string\s+"en"\s+enum \["en","fr","de"\]\s+The language of the greeting\./,
    );
    expect(stdout).toContain('"additionalProperties": false');
  });

  it('prints the definition and its diagnostics as JSON', () => {
    const { code, stdout } = mcp(
      ['inspect', 'Widgets_Add_Widget', '--json', '--no-cache'],
      path.join(examples, 'powershell-module'),
    );
    expect(code).toBe(0);
    const shown = JSON.parse(stdout) as {
      tool: { source: { path: string; line: number } };
      diagnostics: { code: string }[];
    };
    expect(shown.tool.source).toEqual({
      kind: 'ps-module',
      path: 'Widgets/Widgets.psm1',
      line: 17,
    });
    expect(shown.diagnostics.map((d) => d.code)).toContain('I_RENAMED');
  });

  it('shows the output properties, the examples and the opt-ins, as text and as JSON', () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-inspect-output-'));
    try {
      writeFileSync(path.join(project, 'toolpack.yaml'), 'sources:\n  - scripts: .\n');
      writeFileSync(
        path.join(project, 'search_issues.sh'),
        [
          '#!/usr/bin/env bash',
          '# DESCRIPTION "Searches the issue tracker."',
          '# PARAM query AS string DESCRIPTION "Words to look for"',
          '# OUTPUT total AS integer DESCRIPTION "How many issues match"',
          '# OUTPUT next_page AS string OPTIONAL DESCRIPTION "Cursor of the next page"',
          '# EXAMPLE {"query": "login"} DESCRIPTION "Issues about logging in"',
          '# OPTIONS long-running',
          'echo \'{"total": 0}\'',
          '',
        ].join('\n'),
      );
      const text = mcp(['inspect', 'search_issues', '--no-cache'], project);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('options  long-running\n');
      expect(text.stdout).toMatch(
        /Output\n\s+NAME.*\n\s+total\s+integer\s+yes\s+How many issues match/,
      );
      expect(text.stdout).toMatch(/next_page\s+string\s+Cursor of the next page/);
      expect(text.stdout).toContain('Examples\n  Issues about logging in\n    {"query":"login"}\n');
      const json = mcp(['inspect', 'search_issues', '--json', '--no-cache'], project);
      const shown = JSON.parse(json.stdout) as { tool: Record<string, unknown> };
      expect(shown.tool).toMatchObject({
        outputSchema: { type: 'object', required: ['total'] },
        inputExamples: [{ arguments: { query: 'login' }, description: 'Issues about logging in' }],
        longRunning: true,
      });
      // The view keeps its documented key order: schemas, examples, hints, opt-ins, source.
      expect(Object.keys(shown.tool)).toEqual([
        'name',
        'description',
        'inputSchema',
        'outputSchema',
        'inputExamples',
        'longRunning',
        'source',
      ]);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('shows the parameter sets of a PowerShell script as a table, and as JSON', () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-inspect-sets-'));
    try {
      writeFileSync(path.join(project, 'toolpack.yaml'), 'sources:\n  - scripts: .\n');
      writeFileSync(
        path.join(project, 'Find-Widget.ps1'),
        [
          '<#',
          '.SYNOPSIS',
          'Finds a widget by name or by id.',
          '.PARAMETER Name',
          'The name.',
          '.PARAMETER Id',
          'The id.',
          '.PARAMETER Top',
          'How many.',
          '#>',
          "[CmdletBinding(DefaultParameterSetName = 'ByName')]",
          'param(',
          "    [Parameter(Mandatory, ParameterSetName = 'ByName')][string]$Name,",
          "    [Parameter(Mandatory, ParameterSetName = 'ById')][int]$Id,",
          '    [int]$Top',
          ')',
        ].join('\n'),
      );
      const text = mcp(['inspect', 'Find_Widget', '--no-cache'], project);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/Parameter sets .*\n\s+SET\s+DEFAULT\s+REQUIRED\s+TAKES\n/);
      expect(text.stdout).toMatch(/\n\s+ByName\s+yes\s+Name\s+Name, Top\n\s+ById\s+Id\s+Id, Top\n/);
      const json = mcp(['inspect', 'Find_Widget', '--json', '--no-cache'], project);
      expect(
        (JSON.parse(json.stdout) as { tool: { parameterSets: unknown } }).tool.parameterSets,
      ).toEqual([
        { name: 'ByName', isDefault: true, parameters: ['Name', 'Top'], required: ['Name'] },
        { name: 'ById', isDefault: false, parameters: ['Id', 'Top'], required: ['Id'] },
      ]);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('exits 2 with a suggestion for an unknown tool', () => {
    const { code, stderr } = mcp(
      ['inspect', 'greeting', '--no-cache'],
      path.join(examples, 'powershell-scripts'),
    );
    expect(code).toBe(2);
    expect(stderr).toContain('Did you mean New_Greeting');
  });
});

describe('mcp doctor', () => {
  it(`reports Node, pwsh, Python, bash, the cache and the registry, with how to fix what is missing ${PWSH_TEST_TAG}`, () => {
    const { code, stdout } = mcp(['doctor', '--json'], examples, {
      TOOLPACK_REGISTRY: 'http://127.0.0.1:9',
    });
    expect(code).toBe(0);
    const { checks } = JSON.parse(stdout) as {
      checks: { name: string; status: string; detail: string; hint?: string }[];
    };
    expect([...new Set(checks.map((c) => c.name))]).toEqual([
      'node',
      'pwsh',
      'python3',
      'bash',
      'tools',
      'containment',
      'sandbox',
      'runtime',
      'cache',
      'registry',
    ]);
    // examples/ configures no .bas interpreter: the doctor names the tool that cannot run.
    expect(checks.filter((c) => c.name === 'tools')).toContainEqual({
      name: 'tools',
      status: 'warn',
      detail: '1 cannot run (no interpreter is configured for .bas files): book_meeting',
      hint: expect.stringContaining('interpreters: { ".bas"'),
    });
    // How tool children are contained here: namespaces where Linux allows them, else a fallback.
    expect(checks.find((c) => c.name === 'containment')).toMatchObject({
      status: expect.stringMatching(/^(ok|warn)$/),
      detail: expect.stringMatching(/^(namespace|process-group|off): /),
    });
    expect(checks[0]?.status).toBe('ok');
    // The pwsh line says what the probe found: a full PowerShell, the bare engine, or none.
    const pwsh = checks[1];
    if (pwshEngine === undefined) {
      expect(pwsh?.hint).toContain('dotnet tool install --global PowerShell');
    } else if (pwshEngine.kind === 'engine') {
      expect(pwsh).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining(
          `PowerShell engine without the built-in modules (${pwshEngine.version})`,
        ),
        hint: expect.stringMatching(/module cmdlets need a full PowerShell 7\.2\+/),
      });
    } else {
      expect(pwsh).toEqual({
        name: 'pwsh',
        status: 'ok',
        detail: `PowerShell ${pwshEngine.version}`,
      });
    }
    expect(checks.find((c) => c.name === 'registry')).toMatchObject({
      status: 'warn',
      hint: expect.stringContaining('pnpm registry'),
    });
  });

  it('says pack tools would run with full rights where the sandbox is off, and how to fix it', () => {
    const { code, stdout } = mcp(['doctor', '--json'], examples, {
      TOOLPACK_REGISTRY: 'http://127.0.0.1:9',
      TOOLPACK_SANDBOX: 'off',
    });
    expect(code).toBe(0);
    const { checks } = JSON.parse(stdout) as {
      checks: { name: string; status: string; detail: string; hint?: string }[];
    };
    expect(checks.find((c) => c.name === 'sandbox')).toEqual({
      name: 'sandbox',
      status: 'warn',
      detail: expect.stringMatching(
        /TOOLPACK_SANDBOX=off.*; pack tools would run with your full rights$/,
      ),
      hint: expect.stringContaining('install bubblewrap'),
    });
  });

  it('fails on a runtime folder others may use, and says how to fix it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-doctor-run-'));
    try {
      const shared = path.join(dir, 'toolpack');
      mkdirSync(shared);
      chmodSync(shared, 0o777);
      const { code, stdout } = mcp(['doctor', '--json'], examples, {
        TOOLPACK_REGISTRY: 'http://127.0.0.1:9',
        XDG_RUNTIME_DIR: dir,
      });
      expect(code).toBe(1);
      const { checks } = JSON.parse(stdout) as {
        checks: { name: string; status: string; detail: string; hint?: string }[];
      };
      expect(checks.find((c) => c.name === 'runtime')).toEqual({
        name: 'runtime',
        status: 'fail',
        detail: expect.stringContaining(`${shared} cannot be used: others may use it (mode 777`),
        hint: expect.stringContaining('XDG_RUNTIME_DIR'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails on a containment mode it does not know', () => {
    const { code, stdout } = mcp(['doctor'], examples, {
      TOOLPACK_REGISTRY: 'http://127.0.0.1:9',
      TOOLPACK_CONTAINMENT: 'sandbox',
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /FAIL\s+containment\s+TOOLPACK_CONTAINMENT=sandbox is not a containment mode/,
    );
  });

  it('fails on a configured interpreter that does not exist', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-doctor-'));
    try {
      writeFileSync(
        path.join(dir, 'toolpack.yaml'),
        'sources: []\ninterpreters:\n  .bas: [no-such-basic-interpreter]\n',
      );
      const { code, stdout } = mcp(['doctor'], dir, { TOOLPACK_REGISTRY: dir });
      expect(code).toBe(1);
      expect(stdout).toMatch(
        /FAIL\s+interpreter \.bas\s+no-such-basic-interpreter \(configured for \.bas in toolpack\.yaml\) was not found/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
