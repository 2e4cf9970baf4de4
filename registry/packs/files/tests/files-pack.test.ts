import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-files-pack-'));
const project = path.join(temp, 'project');
const outside = path.join(temp, 'outside');
let session: PackSession;
const sandbox = describeSandbox();

interface Listing {
  path: string;
  entries: { path: string; type: string; size?: number }[];
  truncated: boolean;
}
interface Read {
  path: string;
  content: string;
  startLine: number;
  endLine: number;
  truncated: boolean;
}
interface Search {
  matches: { path: string; line: number; text: string }[];
  truncated: boolean;
  filesSearched: number;
}

beforeAll(async () => {
  cpSync(path.join(import.meta.dirname, 'fixtures', 'project'), project, { recursive: true });
  // What a fixture folder cannot hold in Git: a dependency folder and symbolic links.
  mkdirSync(path.join(project, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(
    path.join(project, 'node_modules', 'dep', 'index.js'),
    'module.exports = "TODO in a dependency";\n',
  );
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'TODO outside the project\n');
  symlinkSync(outside, path.join(project, 'escape-dir'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(project, 'escape.txt'));
  symlinkSync(path.join(project, 'docs', 'todo.md'), path.join(project, 'todo-link.md'));
  symlinkSync(path.join(project, '.env'), path.join(project, 'innocent.txt'));
  session = await openPackSession({ dir: packDir, projectRoot: project });
});

afterAll(async () => {
  await session?.close();
  rmSync(temp, { recursive: true, force: true });
});

const call = async <T>(tool: string, args: Record<string, unknown>) =>
  readStructured<T>(await session.call(tool, args));
const refuse = async (tool: string, args: Record<string, unknown>, message: string | RegExp) => {
  const result = await session.call(tool, args);
  expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
  expect(readText(result)).toMatch(message);
};

describe('the files pack', () => {
  it('publishes cleanly: three read-only tools, discovered without errors', async () => {
    const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked'));
    expect(checked.listing.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(checked.manifest.tags).toContain('MCPTools');
    expect(checked.files).toEqual([
      'README.md',
      'src/files-tools.mjs',
      'src/open-inside.mjs',
      'src/secret-files.mjs',
      'toolpack.yaml',
    ]);
    expect(checked.listing.tools.map((t) => t.name)).toEqual([
      'files_list',
      'files_read',
      'files_search',
    ]);
    for (const tool of checked.listing.tools)
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });

  describe('files_list', () => {
    it('lists one folder, without hidden names, showing links without following them', async () => {
      const listing = await call<Listing>('files_list', {});
      expect(listing.path).toBe('.');
      expect(listing.entries.map((e) => [e.path, e.type])).toEqual([
        ['README.md', 'file'],
        ['docs', 'folder'],
        ['escape-dir', 'symlink'],
        ['escape.txt', 'symlink'],
        ['innocent.txt', 'symlink'],
        ['node_modules', 'folder'],
        ['src', 'folder'],
        ['todo-link.md', 'symlink'],
      ]);
      expect(listing.entries[0]?.size).toBeGreaterThan(0);
    });

    it('descends when recursive, to max_depth, skipping node_modules and .git contents', async () => {
      const deep = await call<Listing>('files_list', { path: 'src', recursive: true });
      expect(deep.entries.map((e) => e.path)).toEqual([
        'src/greet.ts',
        'src/logo.gif',
        'src/nested',
        'src/nested/deep.ts',
      ]);
      const shallow = await call<Listing>('files_list', {
        path: 'src',
        recursive: true,
        max_depth: 1,
      });
      expect(shallow.entries.map((e) => e.path)).not.toContain('src/nested/deep.ts');
      const all = await call<Listing>('files_list', { recursive: true, include_hidden: true });
      expect(all.entries.map((e) => e.path)).toEqual(
        expect.arrayContaining(['.env', '.hidden/notes.txt', 'node_modules']),
      );
      expect(all.entries.map((e) => e.path)).not.toContain('node_modules/dep');
      expect(all.entries.some((e) => e.path.startsWith('escape-dir/'))).toBe(false);
      expect(
        (await call<Listing>('files_list', { recursive: true, max_entries: 3 })).truncated,
      ).toBe(true);
    });

    it('refuses paths outside the root', async () => {
      await refuse('files_list', { path: '..' }, /outside the project root/);
      await refuse(
        'files_list',
        { path: 'escape-dir' },
        /leads outside the project root through a symbolic link/,
      );
      await refuse('files_list', { path: outside }, /is an absolute path/);
      await refuse('files_list', { path: 'README.md' }, /is a file, not a folder/);
    });
  });

  describe('files_read', () => {
    it('reads a file, or a range of its lines', async () => {
      const whole = await call<Read>('files_read', { path: 'docs/todo.md' });
      expect(whole).toMatchObject({
        path: 'docs/todo.md',
        startLine: 1,
        endLine: 4,
        truncated: false,
      });
      expect(whole.content).toBe('First TODO: write tests\nSecond todo: ship it\nDone: nothing\n');
      const middle = await call<Read>('files_read', {
        path: 'docs/todo.md',
        start_line: 2,
        max_lines: 1,
      });
      expect(middle).toMatchObject({
        content: 'Second todo: ship it',
        startLine: 2,
        endLine: 2,
        truncated: true,
      });
      const capped = await call<Read>('files_read', { path: 'docs/todo.md', max_bytes: 30 });
      expect(capped).toMatchObject({ content: 'First TODO: write tests', truncated: true });
    });

    it('follows links that stay inside the root', async () => {
      expect((await call<Read>('files_read', { path: 'todo-link.md' })).path).toBe('docs/todo.md');
    });

    it('refuses escapes (.., absolute, links out), binary files, folders and secrets', async () => {
      await refuse('files_read', { path: '../outside/secret.txt' }, /outside the project root/);
      await refuse(
        'files_read',
        { path: 'src/../../outside/secret.txt' },
        /outside the project root/,
      );
      await refuse('files_read', { path: path.join(outside, 'secret.txt') }, /is an absolute path/);
      await refuse('files_read', { path: 'escape.txt' }, /through a symbolic link/);
      await refuse('files_read', { path: 'escape-dir/secret.txt' }, /through a symbolic link/);
      await refuse('files_read', { path: 'src/logo.gif' }, /binary file/);
      await refuse('files_read', { path: 'src' }, /is a folder/);
      await refuse('files_read', { path: 'nope.txt' }, /does not exist/);
      await refuse('files_read', { path: '.env' }, /looks like a secret/);
      await refuse('files_read', { path: 'innocent.txt' }, /looks like a secret/);
    });

    it('reads secrets only when FILES_ALLOW_SECRETS=1', async () => {
      const trusting = await openPackSession({
        dir: packDir,
        projectRoot: project,
        env: { FILES_ALLOW_SECRETS: '1' },
      });
      try {
        expect(
          readStructured<Read>(await trusting.call('files_read', { path: '.env' })).content,
        ).toContain('API_KEY');
      } finally {
        await trusting.close();
      }
    });
  });

  describe('files_search', () => {
    it('finds words case-insensitively, skipping dependencies, binaries, links out and secrets', async () => {
      const found = await call<Search>('files_search', { pattern: 'todo' });
      expect(found.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
        'README.md:3',
        'docs/todo.md:1',
        'docs/todo.md:2',
        'src/greet.ts:2',
        'src/nested/deep.ts:1',
      ]);
      expect(found.matches[3]?.text).toBe('return `Hello, ${name}`; // TODO: localise');
      expect(JSON.stringify(found)).not.toMatch(/dependency|outside|API_KEY|hidden TODO|binary/);
    });

    it('matches case, regular expressions, a glob, a single file, and caps results', async () => {
      expect(
        (await call<Search>('files_search', { pattern: 'todo', case_sensitive: true })).matches.map(
          (m) => m.path,
        ),
      ).toEqual(['README.md', 'docs/todo.md']);
      expect(
        (
          await call<Search>('files_search', { pattern: 'hidden', include_hidden: true })
        ).matches.map((m) => m.path),
      ).toEqual(['.hidden/notes.txt']);
      expect(
        (
          await call<Search>('files_search', { pattern: '^(First|Done)\\b', regex: true })
        ).matches.map((m) => m.line),
      ).toEqual([1, 3]);
      expect(
        (await call<Search>('files_search', { pattern: 'TODO', glob: '*.ts' })).matches.map(
          (m) => m.path,
        ),
      ).toEqual(['src/greet.ts', 'src/nested/deep.ts']);
      expect(
        (await call<Search>('files_search', { pattern: 'todo', path: 'docs/todo.md' })).matches,
      ).toHaveLength(2);
      const capped = await call<Search>('files_search', { pattern: 'todo', max_results: 2 });
      expect(capped).toMatchObject({ truncated: true });
      expect(capped.matches).toHaveLength(2);
      expect((await call<Search>('files_search', { pattern: '(.*' })).matches).toEqual([]);
    });

    it('refuses a broken regular expression and paths outside the root', async () => {
      await refuse(
        'files_search',
        { pattern: '(unclosed', regex: true },
        /not a valid regular expression/,
      );
      await refuse(
        'files_search',
        { pattern: 'x', path: '../outside' },
        /outside the project root/,
      );
      await refuse('files_search', { pattern: 'x', path: 'escape-dir' }, /through a symbolic link/);
    });
  });
});

describe.skipIf(!sandbox.available)(
  `the files pack confined to what it declares [the OS sandbox: ${sandbox.reason}]`,
  () => {
    it('declares reading the project, and nothing else', async () => {
      const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked-declared'));
      expect(checked.manifest.permissions).toEqual({
        filesystem: { read: ['project'], write: [] },
        network: { access: 'none', hosts: [] },
        env: ['FILES_ALLOW_HARD_LINKS', 'FILES_ALLOW_SECRETS'],
        subprocess: false,
      });
    });

    it('lists, reads and searches the project, as unconfined', async () => {
      const confined = await openPackSession({ dir: packDir, projectRoot: project, confine: {} });
      try {
        const read = readStructured<Read>(
          await confined.call('files_read', { path: 'docs/todo.md' }),
        );
        expect(read.content).toBe('First TODO: write tests\nSecond todo: ship it\nDone: nothing\n');
        const listed = readStructured<Listing>(await confined.call('files_list', { path: 'docs' }));
        expect(listed.entries.map((e) => e.path)).toContain('docs/todo.md');
        // Every match the unconfined search finds: links out and secrets skipped alike.
        expect(
          readStructured<Search>(await confined.call('files_search', { pattern: 'todo' })),
        ).toEqual(await call<Search>('files_search', { pattern: 'todo' }));
        // The jail refuses the link out; inside the sandbox its target is not even there.
        expect((await confined.call('files_read', { path: 'escape.txt' })).isError).toBe(true);
      } finally {
        await confined.close();
      }
    });

    it('sees no project when reading it is withheld: the same project, the same call', async () => {
      const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked-withheld'));
      const withheld = {
        ...checked.manifest.permissions,
        filesystem: { read: [], write: [] },
      };
      const confined = await openPackSession({
        dir: packDir,
        projectRoot: project,
        confine: { permissions: withheld },
      });
      try {
        const result = await confined.call('files_read', { path: 'docs/todo.md' });
        expect(result.isError).toBe(true);
        // Not refused by the jail: the project is not there at all.
        expect(readText(result)).toMatch(/ENOENT.*realpath/);
      } finally {
        await confined.close();
      }
    });
  },
);
