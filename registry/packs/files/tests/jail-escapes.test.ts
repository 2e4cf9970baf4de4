import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openPackSession,
  readStructured,
  readText,
  type PackSession,
} from '../../../../apps/registry/src/testing/pack-test-kit.ts';

// Issue 14, finding 11: the jail of the files pack, attacked the ways it was broken.

const packDir = path.resolve(import.meta.dirname, '..');
// Real, as the tools report real paths (a temp folder behind a link, as on macOS, would differ).
const temp = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'toolpack-files-jail-')));
const project = path.join(temp, 'project');
const outside = path.join(temp, 'outside');
const OUTSIDE_TEXT = 'OUTSIDE SECRET';
// Before the fix, about 2 in 100 reads through the tool escaped under this swap (79 of 4000;
// 766 of 25,000 in the attack that found it).
const TOOL_ATTEMPTS = 4000;
let session: PackSession;

beforeAll(async () => {
  mkdirSync(path.join(project, 'data'), { recursive: true });
  writeFileSync(path.join(project, 'data', 'note.txt'), 'inside note\n');
  writeFileSync(path.join(project, 'README.md'), 'A project.\n');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'note.txt'), `${OUTSIDE_TEXT}\n`);
  writeFileSync(path.join(outside, 'outside-only.txt'), `${OUTSIDE_TEXT} too\n`);
  session = await openPackSession({ dir: packDir, projectRoot: project });
});

afterAll(async () => {
  await session?.close();
  rmSync(temp, { recursive: true, force: true });
});

const callText = async (tool: string, args: Record<string, unknown>) => {
  const result = await session.call(tool, args);
  return { isError: result.isError === true, text: readText(result) };
};

/** The text of every line files_search finds. */
const searchTexts = async (args: Record<string, unknown>) =>
  readStructured<{ matches: { text: string }[] }>(
    await session.call('files_search', args),
  ).matches.map((match) => match.text);

/** Swaps project/data for a link to the outside folder and back until stopped. */
async function startSwapping(): Promise<{ stop: () => Promise<number> }> {
  const stopFile = path.join(temp, `stop-${Date.now()}`);
  const readyFile = `${stopFile}.ready`;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(import.meta.dirname, 'support', 'swap-folder.mjs'),
      path.join(project, 'data'),
      outside,
      stopFile,
      String(5_000_000),
      readyFile,
    ],
    { stdio: 'ignore' },
  );
  const exited = once(child, 'exit');
  for (let i = 0; i < 500 && !existsSync(readyFile); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(existsSync(readyFile), 'the swapping process started').toBe(true);
  return {
    stop: async () => {
      writeFileSync(stopFile, 'stop');
      await exited;
      return Number(readFileSync(stopFile, 'utf8'));
    },
  };
}

/** Runs `attempt` up to `max` times, `parallel` at once, until `enough` says so. */
async function repeat(
  max: number,
  parallel: number,
  attempt: () => Promise<void>,
  enough: () => boolean = () => false,
): Promise<number> {
  let done = 0;
  while (done < max && !enough()) {
    const batch = Math.min(parallel, max - done);
    await Promise.all(Array.from({ length: batch }, attempt));
    done += batch;
  }
  return done;
}

/** The check-then-open the pack used before the fix, kept here only to show the race is real. */
async function readCheckingFirst(root: string, relative: string): Promise<string> {
  const real = await realpath(path.resolve(root, relative));
  const fromRoot = path.relative(root, real);
  if (fromRoot.startsWith('..') || path.isAbsolute(fromRoot)) throw new Error('outside');
  return readFile(real, 'utf8');
}

describe('the files pack jail', () => {
  it('reads nothing outside while a folder is swapped for a link, though check-then-open does', async () => {
    const swapper = await startSwapping();
    const unfixed = { escapes: 0, attempts: 0 };
    const tool = { escapes: 0, inside: 0, refusedOutside: 0, other: 0, attempts: 0 };
    let rounds: number;
    try {
      // The race is reachable: the old way of reading lets the outside file through.
      unfixed.attempts = await repeat(
        200_000,
        8,
        async () => {
          const text = await readCheckingFirst(project, 'data/note.txt').catch(() => '');
          if (text.includes(OUTSIDE_TEXT)) unfixed.escapes += 1;
        },
        () => unfixed.escapes >= 5,
      );
      // The same race against the tool: the open lands outside (and is refused), never read.
      tool.attempts = await repeat(TOOL_ATTEMPTS, 16, async () => {
        const { isError, text } = await callText('files_read', { path: 'data/note.txt' });
        if (text.includes(OUTSIDE_TEXT)) tool.escapes += 1;
        else if (!isError && text.includes('inside note')) tool.inside += 1;
        else if (/leads outside the project root/.test(text)) tool.refusedOutside += 1;
        else tool.other += 1;
      });
    } finally {
      rounds = await swapper.stop();
    }
    const figures = JSON.stringify({ rounds, unfixed, tool });
    expect(unfixed.escapes, figures).toBeGreaterThan(0);
    expect(tool.escapes, figures).toBe(0);
    // The swap really happened under the tool: some opens landed outside and were refused.
    expect(tool.refusedOutside, figures).toBeGreaterThan(0);
    expect(tool.inside, figures).toBeGreaterThan(0);
    expect(readFileSync(path.join(project, 'data', 'note.txt'), 'utf8')).toBe('inside note\n');
  });

  it('lists and searches nothing outside while a folder is swapped for a link', async () => {
    const swapper = await startSwapping();
    let leaks = 0;
    let sawData = 0;
    let rounds: number;
    try {
      await repeat(3000, 8, async () => {
        const search = await searchTexts({ pattern: 'OUTSIDE|inside', regex: true });
        if (search.some((text) => text.includes(OUTSIDE_TEXT))) leaks += 1;
        if (search.includes('inside note')) sawData += 1;
        const list = await callText('files_list', { recursive: true });
        if (list.text.includes('outside-only')) leaks += 1;
      });
    } finally {
      rounds = await swapper.stop();
    }
    expect(leaks, JSON.stringify({ rounds, sawData })).toBe(0);
    expect(sawData).toBeGreaterThan(0);
  });

  it('refuses a hard link to a file outside, unless FILES_ALLOW_HARD_LINKS=1', async () => {
    const linked = path.join(project, 'linked.txt');
    linkSync(path.join(outside, 'note.txt'), linked);
    try {
      // The attack is in place: the project's file is the outside file under a second name.
      expect(statSync(linked).nlink).toBe(2);
      expect(readFileSync(linked, 'utf8')).toContain(OUTSIDE_TEXT);
      const read = await callText('files_read', { path: 'linked.txt' });
      expect(read.isError).toBe(true);
      expect(read.text).toMatch(/linked\.txt is a hard link .*FILES_ALLOW_HARD_LINKS=1/);
      expect(await searchTexts({ pattern: OUTSIDE_TEXT })).toEqual([]);
      const trusting = await openPackSession({
        dir: packDir,
        projectRoot: project,
        env: { FILES_ALLOW_HARD_LINKS: '1' },
      });
      try {
        const allowed = readStructured<{ content: string }>(
          await trusting.call('files_read', { path: 'linked.txt' }),
        );
        expect(allowed.content).toContain(OUTSIDE_TEXT);
      } finally {
        await trusting.close();
      }
    } finally {
      rmSync(linked);
    }
  });

  const SECRETS: [file: string, content: string][] = [
    ['.git/config', '[remote "origin"]\n  url = https://user:ghp_TOKEN@github.com/a/b\n'],
    ['.git/modules/sub/config', '[remote "origin"]\n  url = https://user:ghp_TOKEN@host/x\n'],
    ['.git-credentials', 'https://user:ghp_TOKEN@github.com\n'],
    ['credentials', '[default]\naws_secret_access_key = TOKEN\n'],
    ['.aws/credentials', '[default]\naws_secret_access_key = TOKEN\n'],
    ['.docker/config.json', '{"auths":{"x":{"auth":"TOKEN"}}}\n'],
    ['.kube/config', 'users:\n- user:\n    token: TOKEN\n'],
    ['kubeconfig.yaml', 'users:\n- user:\n    token: TOKEN\n'],
    ['.npmrc', '//registry.npmjs.org/:_authToken=TOKEN\n'],
    ['.pypirc', '[pypi]\npassword = TOKEN\n'],
    ['.netrc', 'machine host login me password TOKEN\n'],
    ['.pgpass', 'host:5432:db:me:TOKEN\n'],
    ['.ssh/deploy', 'TOKEN\n'],
    ['certs/server.p12', 'TOKEN\n'],
    ['infra/terraform.tfstate', '{"secret":"TOKEN"}\n'],
    ['.cargo/credentials.toml', '[registry]\ntoken = "TOKEN"\n'],
    ['.bash_history', 'export API_KEY=TOKEN\n'],
    ['auth.json', '{"github-oauth":{"github.com":"TOKEN"}}\n'],
    [
      'docs/notes.txt',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nTOKEN\n-----END OPENSSH PRIVATE KEY-----\n',
    ],
    ['docs/old.txt', '-----BEGIN RSA PRIVATE KEY-----\nTOKEN\n-----END RSA PRIVATE KEY-----\n'],
  ];

  it(`neither reads nor searches ${SECRETS.length} kinds of secret files`, async () => {
    for (const [file, content] of SECRETS) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), content);
    }
    for (const [file] of SECRETS) {
      const read = await callText('files_read', { path: file });
      expect(read.isError, `${file}: ${read.text}`).toBe(true);
      expect(read.text, file).toMatch(/looks like a secret|holds a private key/);
      expect(read.text).not.toContain('TOKEN');
    }
    expect(await searchTexts({ pattern: 'TOKEN', include_hidden: true })).toEqual([]);
    // Ordinary files that only sound alike are still read.
    mkdirSync(path.join(project, 'locales'));
    for (const file of ['credentials.ts', 'locales/auth.json', 'docs/keys.md']) {
      writeFileSync(path.join(project, file), 'About TOKEN_NAME.\n');
      expect((await callText('files_read', { path: file })).isError, file).toBe(false);
    }
  });
});
