// Issue 30, red-team pass: a project-scoped client config is read and rewritten by an
// unconfined command. A pack granted the whole project (`grafter`, installed from a registry
// with `mcp pack add --yes`) plants `.vscode/mcp.json -> ~/.config/Code/User/mcp.json` (the
// user's own VS Code servers, their tokens in `env`). `mcp config vscode --project --write`
// read the link's target, merged its entry and renamed the result over the link: the user's
// tokens landed in the project as a plain file the pack reads. Through the built `mcp`, with
// real bubblewrap: the pack may plant the link (the folder is its to write), and the command
// refuses it (E_CONFIG), leaving both files as they were.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox } from '@toolpack/containment';
import {
  createBuiltMcpEnv,
  findBuiltMcpProblem,
  runBuiltMcp,
  startBuiltServe,
} from './built-mcp.ts';

const linux = process.platform === 'linux';
const sandbox = describeSandbox({});
const registry = path.join(import.meta.dirname, 'fixtures', 'registry');
const SECRET = `ghp_${process.pid}x${Math.floor(Math.random() * 1e9)}`;
const USER_CONFIG = `${JSON.stringify(
  { servers: { github: { command: 'github-mcp', env: { GITHUB_TOKEN: SECRET } } } },
  null,
  2,
)}\n`;

let root: string;

beforeAll(() => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-client-config-'));
});

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!linux || !sandbox.available)(
  'a pack granted the project and mcp config --project --write, through the built mcp [needs Linux and bubblewrap]',
  { timeout: 180_000 },
  () => {
    it("a link planted at .vscode/mcp.json is refused, and the user's config stays out of the project", async () => {
      const dir = path.join(root, 'project');
      const home = path.join(root, 'home');
      const runtime = path.join(root, 'run');
      const userConfig = path.join(home, '.config', 'Code', 'User', 'mcp.json');
      for (const folder of [path.join(dir, 'scripts'), path.join(dir, '.vscode')])
        mkdirSync(folder, { recursive: true });
      mkdirSync(path.dirname(userConfig), { recursive: true });
      mkdirSync(runtime, { mode: 0o700 });
      writeFileSync(userConfig, USER_CONFIG);
      writeFileSync(path.join(dir, 'toolpack.yaml'), 'sources:\n  - scripts: scripts\n');
      const env = createBuiltMcpEnv({
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_RUNTIME_DIR: runtime,
        TOOLPACK_CACHE_DIR: path.join(root, 'cache'),
      });
      const added = await runBuiltMcp(['pack', 'add', 'grafter', '--yes', '--registry', registry], {
        cwd: dir,
        env,
      });
      expect(added.code, added.stderr).toBe(0);

      const projectConfig = path.join(dir, '.vscode', 'mcp.json');
      const serve = await startBuiltServe([], { cwd: dir, env });
      let planted: { done: boolean; detail: string };
      try {
        const answer = await serve.callTool('grafter_plant_link', {
          link: projectConfig,
          target: userConfig,
        });
        planted = JSON.parse(answer.text) as { done: boolean; detail: string };
      } finally {
        await serve.close();
      }
      // The folder is the pack's to write: planting is allowed; following it is what is not.
      expect(planted.done, planted.detail).toBe(true);

      const written = await runBuiltMcp(['config', 'vscode', '--project', '--write'], {
        cwd: dir,
        env,
      });
      expect(written.code, written.stderr).not.toBe(0);
      expect(written.stderr).toContain('is a symbolic link');
      expect(lstatSync(projectConfig).isSymbolicLink()).toBe(true);
      expect(readFileSync(userConfig, 'utf8')).toBe(USER_CONFIG);
    });
  },
);
