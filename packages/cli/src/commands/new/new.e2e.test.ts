import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp } from '../../testing/run-mcp.ts';

const coreDir = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'core');

const mcp = (args: string[], cwd: string) => startMcp(args, { cwd });
const hasGit = spawnSync('git', ['--version']).status === 0;
// A real description: mcp check refuses the placeholder mcp new writes without one.
const DESCRIPTION = 'Returns the text it is given and its length.';

/** What the user does after mcp new without --description: the placeholder's second half goes. */
async function writeDescription(file: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  const described = text.replace(/; say here in one sentence what \w+ does\./, '.');
  expect(described).not.toBe(text);
  await writeFile(file, described);
}

/** What `npm install @toolpack/core zod` would give a JS/TS module outside the workspace. */
async function linkToolpackCore(dir: string): Promise<void> {
  const zod = path.dirname(
    createRequire(path.join(coreDir, 'package.json')).resolve('zod/package.json'),
  );
  await mkdir(path.join(dir, 'node_modules', '@toolpack'), { recursive: true });
  await symlink(coreDir, path.join(dir, 'node_modules', '@toolpack', 'core'), 'junction');
  await symlink(await realpath(zod), path.join(dir, 'node_modules', 'zod'), 'junction');
}

let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'toolpack-new-'));
});
afterAll(async () => {
  if (temp !== undefined) await rm(temp, { recursive: true, force: true });
});

type Source = (dir: string) => string;

const COMBINATIONS: [kind: string, lang: string | undefined, flag: string, source: Source][] = [
  ...['sh', 'py', 'js', 'ts'].map(
    (lang) =>
      ['folder', lang, '--tools-dir', (dir: string) => dir] as [string, string, string, Source],
  ),
  ...['sh', 'py', 'js', 'ts'].map(
    (lang) =>
      ['script', lang, '--script-root', (dir: string) => dir] as [string, string, string, Source],
  ),
  ['module', 'js', '--module', (dir) => path.join(dir, 'module-js-sample.mjs')],
  ['module', 'ts', '--module', (dir) => path.join(dir, 'module-ts-sample.ts')],
  ['basic', undefined, '--script-root', (dir) => dir],
];

interface TestReport {
  results: { name: string; status: string; kind: string; reason?: string }[];
  summary: Record<string, number>;
}

describe.concurrent('mcp new tool, then mcp check and mcp test', () => {
  it.each(COMBINATIONS)(
    '--kind %s --lang %s',
    async (kind, lang, flag, source) => {
      const name = `${kind}-${lang ?? 'basic'}-sample`;
      const dir = path.join(temp, 'combinations', name);
      await mkdir(dir, { recursive: true });
      const created = await mcp(
        [
          'new',
          'tool',
          name,
          '--kind',
          kind,
          ...(lang === undefined ? [] : ['--lang', lang]),
          '--description',
          DESCRIPTION,
        ],
        dir,
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(/^Created the .+:\n/);
      const entry = `${flag === '--module' ? 'module' : flag === '--tools-dir' ? 'tools' : 'scripts'}: ${path.relative(dir, source(dir)) || '.'}`;
      expect(created.stdout).toContain(
        `Created toolpack.yaml, so mcp list serves it:\n  sources:\n    - ${entry}\n`,
      );
      expect(created.stdout).toMatch(/\n {2}mcp check\n {2}mcp test\n {2}mcp call /);
      if (kind === 'module' && lang !== 'ps1') await linkToolpackCore(dir);

      // No source flags: the toolpack.yaml mcp new wrote is what serves the tool.
      const [checked, tested] = await Promise.all([
        mcp(['check', '--no-cache'], dir),
        mcp(['test', '--json'], dir),
      ]);
      expect(checked.stdout).toMatch(/tools checked: 0 errors, 0 warnings/);
      expect(checked.code).toBe(0);

      const report = JSON.parse(tested.stdout) as TestReport;
      expect(report.results).toHaveLength(1);
      const [result] = report.results;
      if (kind === 'basic') {
        // No BASIC interpreter is configured: the smoke test is skipped, saying so.
        expect(result).toMatchObject({
          kind: 'smoke',
          status: 'skipped',
          reason: expect.stringMatching(/no interpreter is configured for \.bas/),
        });
      } else {
        expect(result).toMatchObject({ kind: 'test', status: 'passed' });
      }
      expect(report.summary.failed).toBe(0);
      expect(tested.code).toBe(0);
      // Eleven run at once, three mcp starts each: on two loaded cores one took 20 s.
    },
    60_000,
  );

  // The three PowerShell kinds share one project, so one mcp check and one mcp test (one
  // server, one PowerShell host) serve them all: PowerShell and Node starts are what these
  // combinations cost.
  const POWERSHELL_KINDS: [kind: string, tool: string, flag: string, source: string][] = [
    ['folder', 'folder_ps1_sample', '--tools-dir', 'tools'],
    ['script', 'Script_Ps1Sample', '--script-root', 'scripts'],
    ['module', 'Module_Ps1Sample', '--module', 'modules/ModulePs1Sample.psm1'],
  ];
  let powershellProject: ReturnType<typeof scaffoldPowerShellProject> | undefined;
  async function scaffoldPowerShellProject() {
    const dir = path.join(temp, 'combinations', 'ps1');
    await mkdir(dir, { recursive: true });
    // One after another: each adds its source to the toolpack.yaml the first one created.
    const created = [];
    for (const [kind, , , source] of POWERSHELL_KINDS) {
      created.push(
        await mcp(
          [
            'new',
            'tool',
            `${kind}-ps1-sample`,
            '--kind',
            kind,
            '--lang',
            'ps1',
            '--dir',
            kind === 'module' ? path.dirname(source) : source,
            '--description',
            DESCRIPTION,
          ],
          dir,
        ),
      );
    }
    const [checked, tested] = await Promise.all([
      mcp(['check', '--no-cache', '--json'], dir),
      mcp(['test', '--json', '--no-cache'], dir),
    ]);
    return { created, checked, tested };
  }

  it.skipIf(!hasPwsh).each(POWERSHELL_KINDS)(
    `--kind %s --lang ps1 ${PWSH_TEST_TAG}`,
    async (kind, tool, flag, source) => {
      powershellProject ??= scaffoldPowerShellProject();
      const { created, checked, tested } = await powershellProject;
      const made = created[POWERSHELL_KINDS.findIndex(([k]) => k === kind)];
      expect(made?.stderr).toBe('');
      expect(made?.code).toBe(0);
      expect(made?.stdout).toMatch(/^Created the .+:\n/);
      const entry = `${flag === '--module' ? 'module' : flag === '--tools-dir' ? 'tools' : 'scripts'}: ${source}`;
      expect(made?.stdout).toContain(
        kind === 'folder'
          ? `Created toolpack.yaml, so mcp list serves it:\n  sources:\n    - ${entry}\n`
          : `Added "- ${entry}" to sources: in toolpack.yaml, so mcp list serves it.`,
      );

      // The scaffold's `ReadOnlyHint: <why>` line (MCPServerPS's form) declares the hint.
      const { tools, diagnostics } = JSON.parse(checked.stdout) as {
        tools: { name: string; annotations?: Record<string, unknown> }[];
        diagnostics: { severity: string }[];
      };
      expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
      expect(tools.find((t) => t.name === tool)?.annotations).toEqual({ readOnlyHint: true });
      expect(checked.code).toBe(0);

      const report = JSON.parse(tested.stdout) as TestReport;
      expect(report.results.find((r) => r.name === tool)).toMatchObject({
        kind: 'test',
        status: 'passed',
      });
      expect(report.summary).toEqual({ passed: 3, failed: 0, skipped: 0 });
      expect(tested.code).toBe(0);
    },
    // The first of the three waits for three mcp new in turn, then one check and one test.
    90_000,
  );
});

describe('mcp new tool', () => {
  it.each(['send-notification', 'SendNotification', 'send_notification'])(
    'reads %s into the convention’s names',
    async (raw) => {
      const dir = path.join(temp, 'names', raw);
      await mkdir(dir, { recursive: true });
      const { code } = await mcp(['new', 'tool', raw, '--kind', 'folder', '--lang', 'ps1'], dir);
      expect(code).toBe(0);
      const folder = path.join(dir, 'send-notification');
      expect(await readFile(path.join(folder, 'metadata.yaml'), 'utf8')).toContain(
        'name: send_notification\n',
      );
      expect(await readFile(path.join(folder, 'script.ps1'), 'utf8')).toContain(
        'function Invoke-SendNotification {',
      );
      expect(await readFile(path.join(folder, 'test.ps1'), 'utf8')).toContain(
        'Invoke-ToolpackTool -Name send_notification',
      );
      const script = await mcp(['new', 'tool', raw, '--kind', 'script', '--lang', 'ps1'], dir);
      expect(script.code).toBe(0);
      expect(existsSync(path.join(dir, 'Send-Notification.ps1'))).toBe(true);
    },
  );

  it('says how to get @toolpack/core for a module with none near it: packed tarballs, not the registry', async () => {
    const dir = await mkdtemp(path.join(temp, 'bare-module-'));
    const { code, stdout, stderr } = await mcp(
      ['new', 'tool', 'bare_tool', '--kind', 'module', '--lang', 'js'],
      dir,
    );
    expect(code).toBe(0);
    const output = `${stdout}${stderr}`;
    expect(output).toContain('@toolpack/core is not on the npm registry yet');
    expect(output).toContain('run `pnpm pack-tarballs` in a Toolpack clone');
    expect(output).toContain('npm install zod <clone>/dist-tarballs/toolpack-core-<version>.tgz');
    expect(output).not.toContain('npm install @toolpack/core');
  });

  it('goes into --dir, creating it, and prints --json', async () => {
    const { code, stdout } = await mcp(
      [
        'new',
        'tool',
        'word-count',
        '--kind',
        'script',
        '--lang',
        'py',
        '--dir',
        'nested/scripts',
        '--description',
        'Counts the words of a text.',
        '--json',
      ],
      temp,
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      tool: string;
      files: string[];
      source: Record<string, string>;
    };
    expect(report).toMatchObject({
      tool: 'word_count',
      kind: 'script',
      lang: 'py',
      registered: { outcome: 'created', entry: 'scripts: nested/scripts' },
    });
    expect(report.files.map((file) => path.relative(temp, file).split(path.sep).join('/'))).toEqual(
      ['nested/scripts/word_count.py', 'nested/scripts/word_count.test.mjs'],
    );
    expect(await readFile(path.join(temp, 'nested/scripts/word_count.py'), 'utf8')).toContain(
      '# DESCRIPTION "Counts the words of a text."',
    );
  });

  it('adds its source to the toolpack.yaml there, keeping its comments, once per source', async () => {
    const dir = path.join(temp, 'registers');
    await mkdir(dir, { recursive: true });
    const manifest =
      '# Our project: keep this.\nsources:\n  - tools: tools   # dotbot folders\n\nmaxTools: 20\n';
    await writeFile(path.join(dir, 'toolpack.yaml'), manifest);
    await mkdir(path.join(dir, 'tools'));
    const first = await mcp(
      ['new', 'tool', 'word-count', '--kind', 'script', '--lang', 'js', '--dir', 'scripts'],
      dir,
    );
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(
      'Added "- scripts: scripts" to sources: in toolpack.yaml, so mcp list serves it.',
    );
    const added = manifest.replace(
      '  - tools: tools   # dotbot folders\n',
      '  - tools: tools   # dotbot folders\n  - scripts: scripts\n',
    );
    expect(await readFile(path.join(dir, 'toolpack.yaml'), 'utf8')).toBe(added);

    // The second tool in the same folder is served by that source already: nothing changes.
    const second = await mcp(
      ['new', 'tool', 'line-count', '--kind', 'script', '--lang', 'js', '--dir', 'scripts'],
      dir,
    );
    expect(second.stdout).toContain(
      'toolpack.yaml serves it already: sources: - scripts: scripts.',
    );
    expect(await readFile(path.join(dir, 'toolpack.yaml'), 'utf8')).toBe(added);
    // A tool folder under the tools: source the file had.
    const folder = await mcp(
      ['new', 'tool', 'char-count', '--kind', 'folder', '--lang', 'js', '--dir', 'tools'],
      dir,
    );
    expect(folder.stdout).toContain('toolpack.yaml serves it already: sources: - tools: tools.');
    expect(await readFile(path.join(dir, 'toolpack.yaml'), 'utf8')).toBe(added);

    const listed = await mcp(['list', '--json', '--no-cache'], dir);
    expect(
      (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name),
    ).toEqual(expect.arrayContaining(['word_count', 'line_count', 'char_count']));
  });

  it('with -C outside the folder it was started in, registers the tool in that folder', async () => {
    const started = path.join(temp, 'started-here');
    const elsewhere = path.join(temp, 'elsewhere');
    await mkdir(started, { recursive: true });
    await mkdir(elsewhere, { recursive: true });
    const { code, stdout } = await mcp(
      ['-C', elsewhere, 'new', 'tool', 'word-count', '--kind', 'script', '--lang', 'sh'],
      started,
    );
    expect(code).toBe(0);
    expect(await readFile(path.join(elsewhere, 'toolpack.yaml'), 'utf8')).toBe(
      'sources:\n  - scripts: .\n',
    );
    expect(existsSync(path.join(started, 'toolpack.yaml'))).toBe(false);
    // The next steps, typed where mcp was started, reach that project.
    expect(stdout).toContain(`  mcp -C ${elsewhere} check\n`);
  });

  it('leaves a toolpack.yaml it cannot read as it was, and says which line to add', async () => {
    const dir = path.join(temp, 'broken-manifest');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'toolpack.yaml'), 'sources: [\n');
    const { code, stdout } = await mcp(
      ['new', 'tool', 'word-count', '--kind', 'script', '--lang', 'sh'],
      dir,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /toolpack\.yaml was not changed \(.+\); to serve the tool, add the line "- scripts: \." under sources:\./,
    );
    expect(stdout).toContain('mcp check --script-root .');
    expect(await readFile(path.join(dir, 'toolpack.yaml'), 'utf8')).toBe('sources: [\n');
  });

  it('keeps .toolpack/ out of git: adds it to .gitignore, or leaves a file that has it', async () => {
    const dir = path.join(temp, 'gitignore');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, '.gitignore'), 'node_modules/');
    const first = await mcp(['new', 'tool', 'a-tool', '--kind', 'script', '--lang', 'sh'], dir);
    expect(first.stdout).toContain(
      'Added .toolpack/ to .gitignore (the cache and installed packs stay out of git).',
    );
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n.toolpack/\n',
    );
    const second = await mcp(['new', 'tool', 'b-tool', '--kind', 'script', '--lang', 'sh'], dir);
    expect(second.stdout).not.toContain('.gitignore');
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n.toolpack/\n',
    );

    const fresh = path.join(temp, 'gitignore-created');
    await mkdir(fresh, { recursive: true });
    const created = await mcp(['new', 'tool', 'a-tool', '--kind', 'script', '--lang', 'sh'], fresh);
    expect(created.stdout).toContain(
      'Created .gitignore with .toolpack/ (the cache and installed packs stay out of git).',
    );
    expect(await readFile(path.join(fresh, '.gitignore'), 'utf8')).toMatch(/^\.toolpack\/$/m);
  });

  it.skipIf(!hasGit)(
    'writes no .gitignore where the repository ignores .toolpack/ already [needs git]',
    async () => {
      const repo = path.join(temp, 'repo');
      await mkdir(path.join(repo, 'project'), { recursive: true });
      expect(spawnSync('git', ['init', '-q'], { cwd: repo }).status).toBe(0);
      await writeFile(path.join(repo, '.gitignore'), '.toolpack/\n');
      const { code, stdout } = await mcp(
        ['new', 'tool', 'a-tool', '--kind', 'script', '--lang', 'sh'],
        path.join(repo, 'project'),
      );
      expect(code).toBe(0);
      expect(stdout).not.toContain('.gitignore');
      expect(existsSync(path.join(repo, 'project', '.gitignore'))).toBe(false);
    },
  );

  it('refuses to overwrite and leaves the existing files as they were', async () => {
    const dir = path.join(temp, 'overwrite');
    await mkdir(path.join(dir, 'send-notification'), { recursive: true });
    await writeFile(path.join(dir, 'send-notification', 'metadata.yaml'), 'mine\n');
    const folder = await mcp(
      ['new', 'tool', 'send-notification', '--kind', 'folder', '--lang', 'sh'],
      dir,
    );
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(
      /send-notification\/metadata.yaml already exists: mcp new never overwrites files/,
    );
    expect(folder.stderr).toMatch(/hint: /);
    expect(await readFile(path.join(dir, 'send-notification', 'metadata.yaml'), 'utf8')).toBe(
      'mine\n',
    );
    expect(existsSync(path.join(dir, 'send-notification', 'script.sh'))).toBe(false);

    await writeFile(path.join(dir, 'send_notification.test.mjs'), 'mine\n');
    const script = await mcp(
      ['new', 'tool', 'send-notification', '--kind', 'script', '--lang', 'js'],
      dir,
    );
    expect(script.code).toBe(2);
    expect(script.stderr).toMatch(/send_notification\.test\.mjs already exists/);
    expect(existsSync(path.join(dir, 'send_notification.js'))).toBe(false);
  });

  it.each([
    [
      ['--kind', 'module', '--lang', 'py'],
      /--kind module cannot be written in --lang py; it takes ps1, js, ts/,
    ],
    [['--kind', 'basic', '--lang', 'js'], /--kind basic takes no --lang/],
    [
      ['--kind', 'folder'],
      /Say which language the folder tool is in with --lang ps1\|sh\|py\|js\|ts/,
    ],
    [['--lang', 'js'], /Say which kind of tool to create with --kind/],
    [['--kind', 'widget', '--lang', 'js'], /--kind widget is not a kind of tool/],
  ])('exits 2 for %j, naming the combinations that exist', async (flags, message) => {
    const { code, stderr } = await mcp(['new', 'tool', 'x-tool', ...flags], temp);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toContain(
      'hint: The combinations are: --kind folder --lang ps1|sh|py|js|ts; --kind script --lang ps1|sh|py|js|ts; --kind module --lang ps1|js|ts; --kind basic (no --lang).',
    );
  });

  it('exits 2 for a name that no convention can spell', async () => {
    const { code, stderr } = await mcp(
      ['new', 'tool', '2fa', '--kind', 'script', '--lang', 'sh'],
      temp,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/starts with a digit/);
  });

  it('explains itself in --help, with examples and exit codes', async () => {
    const { code, stdout } = await mcp(['new', 'tool', '--help'], temp);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Examples:\n {2}mcp new tool send-notification/);
    expect(stdout).toMatch(/Exit codes: 0 created/);
  });
});

describe('mcp new pack', () => {
  it('creates a pack that mcp check, mcp test and mcp pack pack accept', async () => {
    const parent = path.join(temp, 'packs');
    await mkdir(parent, { recursive: true });
    const created = await mcp(
      ['new', 'pack', 'weather', '--description', 'Weather forecasts.'],
      parent,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('served as weather_hello where the pack is added');
    const dir = path.join(parent, 'weather');
    const manifest = await readFile(path.join(dir, 'toolpack.yaml'), 'utf8');
    expect(manifest).toMatch(/^name: weather$/m);
    expect(manifest).toMatch(/^version: 0\.1\.0$/m);
    expect(manifest).toMatch(/^description: "Weather forecasts\."$/m);
    expect(manifest).toMatch(/^tags: \[MCPTools\]$/m);
    expect(manifest).toMatch(/^ {2}- scripts: scripts /m);
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toMatch(/\| `weather_hello` \|/);

    await writeDescription(path.join(dir, 'scripts', 'hello.js'));
    const [checked, tested] = await Promise.all([mcp(['check'], dir), mcp(['test'], dir)]);
    expect(checked.code).toBe(0);
    expect(tested.stdout).toMatch(/^ok {3}hello {2}\(scripts\/hello\.test\.mjs\)$/m);
    expect(tested.stdout).toMatch(/^1 passed, 0 failed$/m);
    expect(tested.code).toBe(0);

    const packed = await mcp(
      ['pack', 'pack', 'weather', '--out', path.join(parent, 'out/'), '--json'],
      parent,
    );
    expect(packed.code).toBe(0);
    expect(JSON.parse(packed.stdout)).toMatchObject({
      name: 'weather',
      version: '0.1.0',
      tools: ['hello'],
    });

    const again = await mcp(['new', 'pack', 'weather'], parent);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/weather\/toolpack.yaml already exists/);
  });

  it(`takes --kind/--lang/--tool for its first tool and refuses a name that is no pack name ${PWSH_TEST_TAG}`, async () => {
    const parent = path.join(temp, 'packs-ps');
    await mkdir(parent, { recursive: true });
    const created = await mcp(
      [
        'new',
        'pack',
        'acme/Disk-Tools',
        '--kind',
        'folder',
        '--lang',
        'ps1',
        '--tool',
        'Get-DiskUsage',
        '--json',
      ],
      parent,
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      pack: 'acme/disk-tools',
      tool: 'get_disk_usage',
      servedAs: 'disk_tools_get_disk_usage',
    });
    const dir = path.join(parent, 'disk-tools');
    expect(existsSync(path.join(dir, 'tools', 'get-disk-usage', 'test.ps1'))).toBe(true);
    await writeDescription(path.join(dir, 'tools', 'get-disk-usage', 'metadata.yaml'));
    const [checked, tested] = await Promise.all([mcp(['check'], dir), mcp(['test'], dir)]);
    expect(checked.code).toBe(0);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(
      hasPwsh ? /^ok {3}get_disk_usage/m : /^skip get_disk_usage {2}test\.ps1 needs PowerShell 7/m,
    );

    const bad = await mcp(['new', 'pack', 'a/b/c'], parent);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"a\/b\/c" cannot be a pack name/);
  });
});
