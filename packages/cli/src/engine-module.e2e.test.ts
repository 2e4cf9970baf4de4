import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcp } from './testing/run-mcp.ts';

// A module whose files and exports are computed at import: discovery asks pwsh which functions
// it exports and where, and the runner then calls them in the module's own runspace.
const fixture = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'discovery',
  'src',
  'powershell-reader',
  'fixtures',
  'modules',
  'EngineExports',
);

let project: string;

beforeAll(() => {
  project = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolpack-engine-module-')));
  cpSync(fixture, path.join(project, 'EngineExports'), { recursive: true });
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

const mcp = (args: string[]) =>
  runMcp(['-C', project, ...args, '--module', 'EngineExports/EngineExports.psd1'], {
    cwd: project,
  });

describe.skipIf(!hasPwsh)('a module only pwsh can resolve, through the CLI', () => {
  it(`lists what pwsh exports, and calls it with the module's private helper loaded ${PWSH_TEST_TAG}`, () => {
    const listed = mcp(['list', '--json']);
    const { tools, diagnostics } = JSON.parse(listed.stdout) as {
      tools: Array<{ name: string }>;
      diagnostics: Array<{ code: string }>;
    };
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['Get_Widget', 'Set_Widget']),
    );
    expect(diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(['I_ENGINE_EXPORTS', 'E_RUNTIME_FUNCTION']),
    );
    // Set-Widget calls the module's private helper, which only the module's import defines;
    // these starts find the tool in the cache the listing filled.
    for (let start = 0; start < 2; start++) {
      expect(mcp(['call', 'Set_Widget', '--arg', 'Name=gear', '--arg', 'Size=3'])).toMatchObject({
        code: 0,
        stdout: 'widget:gear=3\n',
      });
    }
  });
});
