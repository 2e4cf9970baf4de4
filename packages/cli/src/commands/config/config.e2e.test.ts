// `mcp config` through the real bin, so it runs from the bundle too when the suites run
// against an installed CLI (TOOLPACK_E2E_MCP_BIN): there it once crashed looking for its own
// package.json one folder too high, and fell back to an unpublished `npx` entry.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpPackageBin, runMcp } from '../../testing/run-mcp.ts';
import { findClientConfig } from './index.ts';

let home: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolpack-config-e2e-')));
  project = path.join(home, 'jira tools');
  mkdirSync(project);
  // Every platform's per-user folder inside the temp home, so no real client config is read.
  env = {
    ...process.env,
    HOME: home,
    USERPROFILE: home,
    APPDATA: path.join(home, 'AppData', 'Roaming'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
  };
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const claudeFile = () => findClientConfig('claude', { env, projectDir: project }).file;

describe('mcp config claude (the real bin)', () => {
  it('prints an entry that starts this very CLI by absolute path, not npx', () => {
    const printed = runMcp(['config', 'claude'], { cwd: project, env });
    expect(printed.stderr).toContain(claudeFile());
    expect(printed.code).toBe(0);
    const config = JSON.parse(printed.stdout) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(config.mcpServers['toolpack-jira-tools']).toEqual({
      command: process.execPath,
      // realpathSync throws unless the bin exists: the client could start it.
      args: [realpathSync(mcpPackageBin), '-C', project, 'serve'],
    });
  });

  it('--write merges into an existing file, keeping the other server, and is idempotent', () => {
    const file = claudeFile();
    mkdirSync(path.dirname(file), { recursive: true });
    const other = { command: 'uvx', args: ['other-server'] };
    writeFileSync(file, JSON.stringify({ mcpServers: { other }, theme: 'dark' }));

    const written = runMcp(['config', 'claude', '--write'], { cwd: project, env });
    expect(written.stderr).toContain(`Added toolpack-jira-tools in ${file}`);
    expect(written.code).toBe(0);
    const config = JSON.parse(readFileSync(file, 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
      theme: string;
    };
    expect(config.theme).toBe('dark');
    expect(config.mcpServers.other).toEqual(other);
    expect(config.mcpServers['toolpack-jira-tools']?.args.slice(1)).toEqual([
      '-C',
      project,
      'serve',
    ]);

    const again = runMcp(['config', 'claude', '--write'], { cwd: project, env });
    expect(again.stderr).toContain('nothing to do');
    expect(again.code).toBe(0);
  });
});
