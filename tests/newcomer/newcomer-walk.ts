// The newcomer's path, walked as a new user meets it: the README's install command, then a
// NEW shell (nothing sourced: the system PATH and the install's bin folder) running the
// installed `mcp` through every step from a first tool to a pack from the gallery and a
// client's configuration, and back.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

export interface WalkNewcomerPathOptions {
  /** Where scripts/install-mcp.sh installed `mcp` (its bin folder is the new shell's PATH). */
  prefix: string;
  /** The new shell's HOME (the client's configuration is written under it). */
  home: string;
  /** A temp folder for the project and the gallery's data. */
  work: string;
}

/** The gallery as `pnpm registry` starts it (seeded with the official packs), on a free port. */
function startGallery(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      path.join(root, 'scripts/check-node.mjs'),
      '--conditions=@toolpack/source',
      path.join(root, 'apps/registry/src/cli.ts'),
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    // The registry reports on stderr; once seeding is over it prints where it listens.
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined) resolve({ child, url });
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', watch);
    child.on('exit', (code) => reject(new Error(`the registry exited (${code}): ${output}`)));
  });
}

/**
 * Walks the path with an `mcp` already installed by the README's command: every step in a
 * new bash, then back to where it started. Fails the calling test at the first wrong step.
 */
export async function walkNewcomerPath(options: WalkNewcomerPathOptions): Promise<void> {
  const { prefix, home } = options;
  const project = path.join(options.work, 'newcomer-project');
  mkdirSync(project);
  const gallery = await startGallery(path.join(options.work, 'newcomer-registry'));
  // Async, not spawnSync: the gallery's output must keep draining while a command runs.
  const inNewShell = (command: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['--norc', '--noprofile', '-c', command], {
        cwd: project,
        env: {
          HOME: home,
          PATH: `${path.join(prefix, 'bin')}:/usr/bin:/bin`,
          TOOLPACK_REGISTRY: gallery.url,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  try {
    const version = await inNewShell('mcp --version');
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });

    // A git repository, so the end can show that .toolpack/ stays out of it.
    expect((await inNewShell('git init -q')).code).toBe(0);
    // No project file yet: the check says so instead of passing on nothing.
    expect((await inNewShell('mcp check')).code).toBe(1);

    const created = await inNewShell(
      'mcp new tool word-count --kind script --lang sh --description "Counts the words of a text."',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('word_count.sh');
    // It registers the tool (and says so), so the next list and check see it.
    expect(created.stdout).toContain(
      'Created toolpack.yaml, so mcp list serves it:\n  sources:\n    - scripts: .\n',
    );
    expect(created.stdout).toContain('Created .gitignore with .toolpack/');
    expect((await inNewShell('mcp list')).stdout).toMatch(/\bword_count\b/);
    const checked = await inNewShell('mcp check');
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    writeFileSync(path.join(project, 'toolpack.yaml'), 'soruces:\n  - scripts: .\n');
    const typo = await inNewShell('mcp check');
    expect(typo.code).toBe(1);
    expect(typo.stdout + typo.stderr).toMatch(/soruces: unknown key[\s\S]*Did you mean sources\?/);
    writeFileSync(path.join(project, 'toolpack.yaml'), 'sources:\n  - scripts: .\n');

    const search = await inNewShell('mcp pack search --tag MCPTools');
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toMatch(/^jira\s+\d+\.\d+\.\d+\s+5\s+MCPTools/m);

    // No terminal here to ask on: --yes approves what the pack declares, as a script would.
    const added = await inNewShell('mcp pack add jira --yes');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^added jira@/);

    const listed = await inNewShell('mcp list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/\bword_count\b/);
    expect(listed.stdout).toMatch(/\bjira_search_issues\b/);

    const printed = await inNewShell('mcp config claude');
    expect(printed.code, printed.stderr).toBe(0);
    const entry = JSON.parse(printed.stdout.slice(0, printed.stdout.lastIndexOf('}') + 1)) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const [name, server] = Object.entries(entry.mcpServers)[0] ?? [];
    expect(server?.command).toMatch(new RegExp(`^${prefix}/`));
    expect(server?.args).toEqual(expect.arrayContaining(['-C', project, 'serve']));

    // --write merges into the client's file without clobbering a server already there.
    const configFile = path.join(home, '.config', 'Claude', 'claude_desktop_config.json');
    mkdirSync(path.dirname(configFile), { recursive: true });
    const other = { command: 'other-server', args: ['--stdio'] };
    writeFileSync(configFile, JSON.stringify({ mcpServers: { other } }, null, 2));
    const written = await inNewShell('mcp config claude --write');
    expect(written.code, written.stderr).toBe(0);
    const merged = JSON.parse(readFileSync(configFile, 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    expect(merged.mcpServers.other).toEqual(other);
    expect(merged.mcpServers[name ?? '']).toEqual(server);

    const removed = await inNewShell('mcp pack remove jira');
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).not.toMatch(/jira/);
    expect((await inNewShell('mcp list')).stdout).not.toMatch(/jira_/);

    // The cache and the pack that was installed are there, and git ignores them.
    const status = await inNewShell('git status --porcelain --ignored');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^!! \.toolpack\/$/m);
    expect(status.stdout).not.toMatch(/^[^!].*\.toolpack/m);
  } finally {
    if (gallery.child.exitCode === null) gallery.child.kill('SIGTERM');
  }
}
