import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPackFolder,
  describeSandbox,
  openPackSession,
  readStructured,
  readText,
  type PackSession,
} from '../../../../apps/registry/src/testing/pack-test-kit.ts';

const packDir = path.resolve(import.meta.dirname, '..');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-git-pack-'));
const repo = path.join(temp, 'repo');
let session: PackSession;
const sandbox = describeSandbox();

function git(args: string[], cwd = repo) {
  const result = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Ada Lovelace',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada Lovelace',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

interface Status {
  branch: string | null;
  clean: boolean;
  fileCount: number;
  truncated: boolean;
  files: { path: string; from?: string; staged: string | null; unstaged: string | null }[];
}
interface Log {
  commits: {
    hash: string;
    short: string;
    author: string;
    email: string;
    date: string;
    subject: string;
  }[];
}

beforeAll(async () => {
  cpSync(path.join(import.meta.dirname, 'fixtures', 'project'), repo, { recursive: true });
  git(['init', '-q', '-b', 'main']);
  git(['add', '.']);
  git(['commit', '-q', '-m', 'Initial commit']);
  writeFileSync(path.join(repo, 'src', 'answer.ts'), 'export const answer = 43;\n');
  git(['commit', '-q', '-am', 'Fix the "answer" – now 43 ✓']);
  git(['tag', 'v1']);
  // The work tree the tools look at: one unstaged edit, one staged rename, one untracked file.
  writeFileSync(
    path.join(repo, 'README.md'),
    '# Demo project\n\nA small project the git tools read.\nMore.\n',
  );
  git(['mv', 'notes with spaces.txt', 'notes – renamed.txt']);
  writeFileSync(path.join(repo, 'new file.txt'), 'untracked\n');
  session = await openPackSession({ dir: packDir, projectRoot: repo });
});

afterAll(async () => {
  await session?.close();
  rmSync(temp, { recursive: true, force: true });
});

describe('the git pack', () => {
  it('publishes cleanly: three read-only tools, every one discovered without errors, tests left out', async () => {
    const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked'));
    expect(checked.manifest).toMatchObject({
      name: 'git',
      version: '1.1.1',
      tags: expect.arrayContaining(['MCPTools']),
    });
    expect(checked.listing.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(checked.listing.tools.map((t) => t.name)).toEqual(['git_diff', 'git_log', 'git_status']);
    expect(checked.files.some((f) => f.startsWith('tests/'))).toBe(false);
    expect(checked.files).toEqual(
      expect.arrayContaining(['README.md', 'lib/git-tools.sh', 'toolpack.yaml']),
    );
    const log = checked.listing.tools.find((t) => t.name === 'git_log');
    expect(log?.inputSchema).toMatchObject({
      properties: {
        max_count: { type: 'integer', default: 20 },
        ref: { type: 'string' },
        path: { type: 'string' },
      },
      additionalProperties: false,
    });
    expect(session.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('git_status reports branch, staged, unstaged, renamed and untracked files', async () => {
    const status = readStructured<Status>(await session.call('git_status'));
    expect(status).toMatchObject({ branch: 'main', clean: false, fileCount: 3, truncated: false });
    expect(status.files).toEqual(
      expect.arrayContaining([
        { path: 'README.md', staged: null, unstaged: 'modified' },
        {
          path: 'notes – renamed.txt',
          from: 'notes with spaces.txt',
          staged: 'renamed',
          unstaged: null,
        },
        { path: 'new file.txt', staged: null, unstaged: 'untracked' },
      ]),
    );
    const tracked = readStructured<Status>(
      await session.call('git_status', { untracked: false, max_files: 1 }),
    );
    expect(tracked).toMatchObject({ fileCount: 2, truncated: true });
    expect(tracked.files).toHaveLength(1);
  });

  it('git_log lists commits newest first, by count, ref and path, with exact subjects', async () => {
    const log = readStructured<Log>(await session.call('git_log'));
    expect(log.commits.map((c) => c.subject)).toEqual([
      'Fix the "answer" – now 43 ✓',
      'Initial commit',
    ]);
    expect(log.commits[0]).toMatchObject({ author: 'Ada Lovelace', email: 'ada@example.com' });
    expect(log.commits[0]?.hash).toMatch(/^[0-9a-f]{40}$/);
    expect(
      readStructured<Log>(await session.call('git_log', { max_count: 1 })).commits,
    ).toHaveLength(1);
    expect(
      readStructured<Log>(await session.call('git_log', { ref: 'v1~1' })).commits.map(
        (c) => c.subject,
      ),
    ).toEqual(['Initial commit']);
    expect(
      readStructured<Log>(await session.call('git_log', { path: 'README.md' })).commits,
    ).toHaveLength(1);
  });

  it('git_diff shows unstaged and staged changes, a summary, and changes against a ref', async () => {
    const unstaged = readText(await session.call('git_diff'));
    expect(unstaged).toContain('+More.');
    expect(unstaged).not.toContain('renamed');
    const staged = readText(await session.call('git_diff', { staged: true }));
    expect(staged).toContain('rename to notes – renamed.txt');
    expect(readText(await session.call('git_diff', { staged: true, stat_only: true }))).toMatch(
      /1 file changed/,
    );
    expect(readText(await session.call('git_diff', { ref: 'v1~1', path: 'src' }))).toContain(
      '+export const answer = 43;',
    );
    expect(readText(await session.call('git_diff', { path: 'src' }))).toBe('No differences.');
  });

  it('refuses refs that read as options, unknown refs, escaping paths and out-of-range counts', async () => {
    const output = path.join(temp, 'written-by-git');
    for (const [tool, args, message] of [
      ['git_diff', { ref: `--output=${output}` }, 'starts with "-"'],
      ['git_log', { ref: '--all' }, 'starts with "-"'],
      ['git_log', { ref: 'no-such-branch' }, 'is not a branch, tag or commit'],
      ['git_diff', { path: '../outside' }, 'climbs out of the project root'],
      ['git_log', { path: '/etc/passwd' }, 'is absolute'],
      ['git_log', { max_count: 0 }, 'max_count must be from 1 to 200'],
      ['git_diff', { context_lines: 99 }, 'context_lines must be from 0 to 20'],
    ] as const) {
      const result = await session.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(readText(result)).toContain(message);
    }
    expect(existsSync(output)).toBe(false);
  });

  it('reads arguments with quotes, escapes and unicode exactly', async () => {
    const name = 'we"ird \\ name ✓.txt';
    writeFileSync(path.join(repo, name), 'x\n');
    git(['add', name]);
    const staged = readText(
      await session.call('git_diff', { staged: true, stat_only: true, path: name }),
    );
    expect(staged).toContain('1 file changed');
    git(['rm', '-q', '--cached', name]);
    rmSync(path.join(repo, name));
  });

  it('answers with an error outside a repository and an empty log in a repository without commits', async () => {
    const outside = await openPackSession({ dir: packDir, projectRoot: temp });
    try {
      const result = await outside.call('git_status');
      expect(result.isError).toBe(true);
      expect(readText(result)).toContain('is not inside a Git repository');
      const empty = path.join(temp, 'empty');
      git(['init', '-q', empty], temp);
      const fresh = await openPackSession({ dir: packDir, projectRoot: empty });
      try {
        expect(readStructured<Log>(await fresh.call('git_log'))).toEqual({ commits: [] });
        expect(readStructured<Status>(await fresh.call('git_status'))).toMatchObject({
          clean: true,
          files: [],
        });
      } finally {
        await fresh.close();
      }
    } finally {
      await outside.close();
    }
  });

  it('leaves the repository as it found it', async () => {
    const before = git(['status', '--porcelain=v2']);
    for (const tool of ['git_status', 'git_log', 'git_diff']) await session.call(tool);
    expect(git(['status', '--porcelain=v2'])).toBe(before);
    expect(existsSync(path.join(repo, '.git', 'index.lock'))).toBe(false);
  });
});

describe.skipIf(!sandbox.available)(
  `the git pack confined to what it declares [the OS sandbox: ${sandbox.reason}]`,
  () => {
    it('declares reading the project and starting programs (git), nothing else', async () => {
      const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked-declared'));
      expect(checked.manifest.permissions).toEqual({
        filesystem: { read: ['project'], write: [] },
        network: { access: 'none', hosts: [] },
        env: [],
        subprocess: true,
      });
    });

    // Git runs inside with a private, empty HOME (no ~/.gitconfig) and the project's .git
    // read-only: it must still find the repository its owner's, and report as it does outside.
    it('reports the same status, log and diff as unconfined', async () => {
      const confined = await openPackSession({ dir: packDir, projectRoot: repo, confine: {} });
      try {
        for (const tool of ['git_status', 'git_log', 'git_diff']) {
          const inside = await confined.call(tool);
          expect(inside.isError, `${tool}: ${readText(inside)}`).not.toBe(true);
          expect(inside).toEqual(await session.call(tool));
        }
        expect(readStructured<Status>(await confined.call('git_status'))).toMatchObject({
          branch: 'main',
          fileCount: 3,
        });
      } finally {
        await confined.close();
      }
    });

    it('finds no repository when reading the project is withheld: the same repository', async () => {
      const withheld = await openPackSession({
        dir: packDir,
        projectRoot: repo,
        confine: {
          permissions: {
            filesystem: { read: [], write: [] },
            network: { access: 'none', hosts: [] },
            env: [],
            subprocess: true,
          },
        },
      });
      try {
        const result = await withheld.call('git_status');
        expect(result.isError).toBe(true);
        expect(readText(result)).toContain('The project root does not exist');
      } finally {
        await withheld.close();
      }
    });
  },
);
