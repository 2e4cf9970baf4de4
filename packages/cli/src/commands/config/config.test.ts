import {
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../main.ts';
import { findClientConfig, mergeServerEntry, resolveServerLaunch } from './index.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const bin = path.resolve(import.meta.dirname, '..', '..', '..', 'bin', 'mcp.js');

let home: string;
let project: string;

beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'toolpack-config-home-'));
  project = path.join(mkdtempSync(path.join(os.tmpdir(), 'toolpack-config-')), 'jira tools');
  mkdirSync(project);
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(path.dirname(project), { recursive: true, force: true });
});

async function mcp(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    cwd: project,
    // Only what the command reads: the per-user folders of every platform, all in the temp home.
    env: {
      HOME: home,
      USERPROFILE: home,
      APPDATA: path.join(home, 'AppData', 'Roaming'),
      NO_COLOR: '1',
    },
  });
  return { code, stdout, stderr };
}

const claudeFile = () =>
  findClientConfig('claude', {
    env: { HOME: home, APPDATA: path.join(home, 'AppData', 'Roaming') },
    projectDir: project,
  }).file;
const readJson = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;

describe('mcp config', () => {
  it('prints the Claude Desktop entry: this Node, this bin, the absolute project, serve', async () => {
    const { code, stdout, stderr } = await mcp(['config', 'claude']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      mcpServers: {
        'toolpack-jira-tools': { command: process.execPath, args: [bin, '-C', project, 'serve'] },
      },
    });
    expect(stderr).toContain(claudeFile());
    expect(existsSync(claudeFile())).toBe(false);
  });

  it('prints VS Code’s shape (servers, type stdio) and Cursor’s (mcpServers)', async () => {
    const vscode = JSON.parse((await mcp(['config', 'vscode', '--name', 'jira'])).stdout) as Record<
      string,
      unknown
    >;
    expect(vscode).toEqual({
      servers: {
        jira: { type: 'stdio', command: process.execPath, args: [bin, '-C', project, 'serve'] },
      },
    });
    const printed = await mcp(['config', 'cursor', '--npx']);
    const cursor = JSON.parse(printed.stdout) as Record<string, unknown>;
    // The npx entry names a package not on npm yet: said, with the entry that does start.
    expect(printed.stderr).toMatch(
      /^warning @toolpack\/cli is not on the npm registry yet: `npx -y @toolpack\/cli@\d\S*` fails \(404\) until it is published\. Until then, install mcp from a Toolpack clone with scripts\/install-mcp\.sh .*`mcp config cursor` without --npx/m,
    );
    expect((await mcp(['config', 'cursor'])).stderr).not.toContain('warning');
    expect(cursor).toEqual({
      mcpServers: {
        'toolpack-jira-tools': {
          command: 'npx',
          args: ['-y', expect.stringMatching(/^@toolpack\/cli@\d/), '-C', project, 'serve'],
        },
      },
    });
  });

  it('--write creates the client file and its folders when there is none', async () => {
    const { code, stderr } = await mcp(['config', 'claude', '--write']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/Added toolpack-jira-tools in .*claude_desktop_config\.json/);
    expect(readJson(claudeFile())).toEqual({
      mcpServers: {
        'toolpack-jira-tools': { command: process.execPath, args: [bin, '-C', project, 'serve'] },
      },
    });
    expect((await mcp(['config', 'claude', '--write'])).stderr).toMatch(
      /already has toolpack-jira-tools/,
    );
  });

  it('--schema-dialect adds the dialect to the serve command, except the default', async () => {
    const { code, stdout } = await mcp(['config', 'claude', '--schema-dialect', 'openai-strict']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      mcpServers: {
        'toolpack-jira-tools': {
          command: process.execPath,
          args: [bin, '-C', project, 'serve', '--schema-dialect', 'openai-strict'],
        },
      },
    });
    const portable = await mcp(['config', 'claude', '--schema-dialect', 'portable']);
    expect(JSON.parse(portable.stdout).mcpServers['toolpack-jira-tools'].args).toEqual([
      bin,
      '-C',
      project,
      'serve',
    ]);
  });

  it('--flat-schemas, deprecated, is the default now: nothing added, and it says so', async () => {
    const { code, stdout, stderr } = await mcp(['config', 'claude', '--flat-schemas']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).mcpServers['toolpack-jira-tools'].args).toEqual([
      bin,
      '-C',
      project,
      'serve',
    ]);
    expect(stderr).toContain('--flat-schemas is deprecated: it is --schema-dialect portable');
  });

  it('refuses a dialect it does not know, naming the three', async () => {
    const { code, stderr } = await mcp(['config', 'claude', '--schema-dialect', 'strict']);
    expect(code).toBe(2);
    expect(stderr).toContain('expected one of portable, exact, openai-strict.');
  });

  it('--write merges into a file with other servers and keys, keeping them all', async () => {
    mkdirSync(path.dirname(claudeFile()), { recursive: true });
    copyFileSync(path.join(fixtures, 'claude-with-other-servers.json'), claudeFile());
    const before = readJson(path.join(fixtures, 'claude-with-other-servers.json'));
    expect((await mcp(['config', 'claude', '--write', '--name', 'jira'])).code).toBe(0);
    const after = readJson(claudeFile());
    expect(after.globalShortcut).toBe('Ctrl+Space');
    expect(after.mcpServers).toEqual({
      ...before.mcpServers,
      jira: { command: process.execPath, args: [bin, '-C', project, 'serve'] },
    });
    // Writing again with another launch replaces only our entry.
    expect((await mcp(['config', 'claude', '--write', '--name', 'jira', '--npx'])).stderr).toMatch(
      /Updated jira/,
    );
    expect(Object.keys(readJson(claudeFile()).mcpServers ?? {})).toEqual([
      'filesystem',
      'weather',
      'jira',
    ]);
  });

  it('refuses a malformed config file and leaves it byte for byte as it was (exit 2)', async () => {
    const file = path.join(home, '.cursor', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    copyFileSync(path.join(fixtures, 'malformed.json'), file);
    const { code, stderr } = await mcp(['config', 'cursor', '--write']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/mcp\.json is not valid JSON .*left untouched/);
    expect(stderr).toMatch(/hint: .*without --write by hand/);
    expect(readFileSync(file, 'utf8')).toBe(
      readFileSync(path.join(fixtures, 'malformed.json'), 'utf8'),
    );
  });

  it('--project writes VS Code’s .vscode/mcp.json next to other servers', async () => {
    const file = path.join(project, '.vscode', 'mcp.json');
    mkdirSync(path.dirname(file), { recursive: true });
    copyFileSync(path.join(fixtures, 'vscode-with-other-servers.json'), file);
    expect((await mcp(['config', 'vscode', '--project', '--write'])).code).toBe(0);
    const after = readJson(file);
    expect(Object.keys(after.servers ?? {})).toEqual(['github', 'toolpack-jira-tools']);
    expect(after.servers?.['toolpack-jira-tools']).toMatchObject({ type: 'stdio' });
    expect(after.inputs).toEqual([]);
  });

  it('rejects an unknown client and a bad name (exit 2)', async () => {
    expect((await mcp(['config', 'emacs'])).code).toBe(2);
    expect((await mcp(['config', 'claude', '--name', 'has space'])).code).toBe(2);
  });
});

describe('findClientConfig', () => {
  const env = { HOME: '/home/ada', APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' };
  it('knows each client’s file on each platform', () => {
    expect(findClientConfig('claude', { env, projectDir: '/p', platform: 'darwin' }).file).toBe(
      path.join(
        '/home/ada',
        'Library',
        'Application Support',
        'Claude',
        'claude_desktop_config.json',
      ),
    );
    expect(findClientConfig('claude', { env, projectDir: '/p', platform: 'win32' }).file).toBe(
      path.join('C:\\Users\\ada\\AppData\\Roaming', 'Claude', 'claude_desktop_config.json'),
    );
    expect(
      findClientConfig('claude', {
        env: { ...env, XDG_CONFIG_HOME: '/xdg' },
        projectDir: '/p',
        platform: 'linux',
      }).file,
    ).toBe(path.join('/xdg', 'Claude', 'claude_desktop_config.json'));
    expect(findClientConfig('vscode', { env, projectDir: '/p', platform: 'linux' })).toEqual({
      file: path.join('/home/ada', '.config', 'Code', 'User', 'mcp.json'),
      container: 'servers',
    });
    expect(
      findClientConfig('cursor', { env, projectDir: '/p', platform: 'win32', project: true }).file,
    ).toBe(path.join('/p', '.cursor', 'mcp.json'));
    expect(() => findClientConfig('claude', { env, projectDir: '/p', project: true })).toThrow(
      /no per-project/,
    );
  });
});

describe('resolveServerLaunch', () => {
  it('uses npx when this CLI runs from npx’s throwaway cache', () => {
    expect(
      resolveServerLaunch({
        projectDir: '/p',
        version: '1.2.3',
        binPath: '/home/ada/.npm/_npx/abc/node_modules/@toolpack/cli/bin/mcp.js',
      }),
    ).toEqual({ command: 'npx', args: ['-y', '@toolpack/cli@1.2.3', '-C', '/p', 'serve'] });
  });

  it('otherwise starts the installed bin with this Node, by absolute paths', () => {
    expect(
      resolveServerLaunch({
        projectDir: '/p',
        version: '1.2.3',
        binPath: bin,
        nodePath: '/usr/bin/node',
      }),
    ).toEqual({
      command: '/usr/bin/node',
      args: [bin, '-C', '/p', 'serve'],
    });
  });
});

// What a pack granted the project plants where `--project --write` reads and rewrites.
describe('a project config a pack could have planted', () => {
  const entry = { command: 'mcp', args: ['serve'] };
  const secret = '{ "servers": { "github": { "env": { "GITHUB_TOKEN": "ghp_secret" } } } }\n';

  function plantLink(): { link: string; userConfig: string } {
    const userConfig = path.join(home, 'mcp.json');
    writeFileSync(userConfig, secret);
    const link = path.join(project, '.vscode', 'mcp.json');
    mkdirSync(path.dirname(link));
    symlinkSync(userConfig, link);
    return { link, userConfig };
  }

  it('a symbolic link: followed, the user’s servers land in the project as a plain file', async () => {
    const { link } = plantLink();
    // The same merge without the project's guard (as a user-wide file is read).
    await mergeServerEntry({ file: link, container: 'servers' }, 'toolpack', entry);
    expect(lstatSync(link).isFile()).toBe(true);
    expect(readFileSync(link, 'utf8')).toContain('ghp_secret');
  });

  it('a symbolic link is refused for a project file, and both files stay as they were', async () => {
    const { link, userConfig } = plantLink();
    const target = {
      ...findClientConfig('vscode', { env: { HOME: home }, projectDir: project, project: true }),
    };
    expect(target).toMatchObject({ file: link, inProject: true });
    await expect(mergeServerEntry(target, 'toolpack', entry)).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: expect.stringContaining('is a symbolic link'),
    });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(userConfig, 'utf8')).toBe(secret);
  });

  it('a hard link is refused for a project file', async () => {
    const other = path.join(home, 'other.json');
    writeFileSync(other, secret);
    const file = path.join(project, '.cursor', 'mcp.json');
    mkdirSync(path.dirname(file));
    linkSync(other, file);
    const target = findClientConfig('cursor', {
      env: { HOME: home },
      projectDir: project,
      project: true,
    });
    await expect(mergeServerEntry(target, 'toolpack', entry)).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: expect.stringContaining('has other hard links'),
    });
    expect(readFileSync(other, 'utf8')).toBe(secret);
  });
});
