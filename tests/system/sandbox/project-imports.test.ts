// Issue 30, red-team pass: the project's own JS module (`module: src/tools.mjs`, run
// unconfined) imports a package from the project's `node_modules`, outside its own folder. A
// pack granted the whole project (`grafter`, installed from a registry with `mcp pack add
// --yes`) rewrites that package; at the next start the server's unconfined child would load
// it. Through the built `mcp`: confined, the write fails and the project's tool answers as
// written; with the sandbox off (the same pack, the same files), the project's tool runs the
// pack's code, so the refusal is not a broken fixture.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
const PAYLOAD = `grafted-${process.pid}x${Math.floor(Math.random() * 1e9)}`;

type Mode = 'confined' | 'unconfined';

let root: string;

const MODULE = `import { greet } from 'greeter';

const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');

export const hello = Object.freeze({
  [TOOL_BRAND]: true,
  name: 'hello',
  description: 'A tool of the project itself, from a package in its node_modules.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  run: () => greet(),
});
`;

async function attemptGraft(mode: Mode) {
  const base = path.join(root, mode);
  const dir = path.join(base, 'project');
  const home = path.join(base, 'home');
  const runtime = path.join(base, 'run');
  const greeter = path.join(dir, 'node_modules', 'greeter');
  for (const folder of [home, path.join(dir, 'src'), greeter])
    mkdirSync(folder, { recursive: true });
  mkdirSync(runtime, { mode: 0o700 });
  writeFileSync(path.join(dir, 'toolpack.yaml'), 'sources:\n  - module: src/tools.mjs\n');
  writeFileSync(path.join(dir, 'src', 'tools.mjs'), MODULE);
  writeFileSync(
    path.join(greeter, 'package.json'),
    '{ "name": "greeter", "version": "1.0.0", "type": "module", "exports": "./index.js" }\n',
  );
  writeFileSync(path.join(greeter, 'index.js'), "export const greet = () => 'greeter ok';\n");
  const env = createBuiltMcpEnv({
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    TOOLPACK_CACHE_DIR: path.join(base, 'cache'),
    ...(mode === 'unconfined' ? { TOOLPACK_SANDBOX: 'off' } : {}),
  });
  const added = await runBuiltMcp(['pack', 'add', 'grafter', '--yes', '--registry', registry], {
    cwd: dir,
    env,
  });
  if (added.code !== 0)
    throw new Error(`mcp pack add grafter --yes failed (${added.code}):\n${added.stderr}`);

  const first = await startBuiltServe([], { cwd: dir, env });
  let graft: { done: boolean; detail: string };
  try {
    const before = await first.callTool('hello', {});
    expect(before.text, first.stderr()).toContain('greeter ok');
    const answer = await first.callTool('grafter_write_file', {
      path: path.join(greeter, 'index.js'),
      text: `export const greet = () => '${PAYLOAD}';\n`,
    });
    graft = JSON.parse(answer.text) as { done: boolean; detail: string };
  } finally {
    await first.close();
  }
  // The next start imports the module again, unconfined.
  const next = await startBuiltServe([], { cwd: dir, env });
  try {
    const after = await next.callTool('hello', {});
    return { graft, after: after.text, stderr: first.stderr() };
  } finally {
    await next.close();
  }
}

beforeAll(() => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-imports-'));
});

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!linux)(
  "a pack granted the project and the project's own JS module's node_modules, through the built mcp [needs Linux]",
  { timeout: 180_000 },
  () => {
    it.skipIf(!sandbox.available)(
      'confined [needs bubblewrap]: the package the module imports cannot be rewritten',
      async () => {
        const seen = await attemptGraft('confined');
        expect(seen.stderr).not.toContain('W_SANDBOX_UNAVAILABLE');
        expect(seen.graft.done, seen.graft.detail).toBe(false);
        expect(seen.after).toContain('greeter ok');
        expect(seen.after).not.toContain(PAYLOAD);
      },
    );

    it("unconfined (TOOLPACK_SANDBOX=off): the project's tool runs the pack's code at the next start", async () => {
      const seen = await attemptGraft('unconfined');
      expect(seen.stderr).toContain('W_SANDBOX_UNAVAILABLE');
      expect(seen.graft, seen.graft.detail).toMatchObject({ done: true });
      expect(seen.after).toContain(PAYLOAD);
    });
  },
);
