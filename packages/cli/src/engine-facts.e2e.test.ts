import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcp } from './testing/run-mcp.ts';

// A module function with a dynamicparam block and parameters typed with enums of the module's
// own assembly: discovery asks pwsh for what the files cannot tell, and a call binds the
// dynamic parameter in the real engine.
const fixture = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'discovery',
  'src',
  'powershell-reader',
  'fixtures',
  'modules',
  'DynamicParameters',
);

let project: string;

beforeAll(() => {
  project = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolpack-engine-facts-')));
  const folder = path.join(project, 'DynamicParameters');
  cpSync(fixture, folder, { recursive: true });
  if (!hasPwsh) return;
  const compiled = spawnSync(
    'pwsh',
    ['-NoProfile', '-Command', 'Add-Type -Path ./Gears.cs -OutputAssembly ./Gears.dll'],
    { cwd: folder, encoding: 'utf8' },
  );
  expect(compiled.stderr).toBe('');
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

const mcp = (args: string[]) =>
  runMcp(['-C', project, ...args, '--module', 'DynamicParameters/DynamicParameters.psd1'], {
    cwd: project,
  });

describe.skipIf(!hasPwsh)('dynamic parameters and compiled enums, through the CLI', () => {
  it(`lists the dynamic parameters and binds them in pwsh ${PWSH_TEST_TAG}`, () => {
    const listed = mcp(['list', '--json']);
    const { tools } = JSON.parse(listed.stdout) as {
      tools: Array<{ name: string; inputSchema: { properties: Record<string, unknown> } }>;
    };
    const gear = tools.find((tool) => tool.name === 'Invoke_Gear');
    expect(Object.keys(gear?.inputSchema.properties ?? {})).toEqual([
      'Name',
      'Mode',
      'Coating',
      'Speed',
      'Finish',
    ]);
    // Finish in another case binds its canonical spelling; Speed and Finish exist only
    // once the dynamicparam block has run.
    expect(
      mcp([
        'call',
        'Invoke_Gear',
        '--arg',
        'Name=g1',
        '--arg',
        'Speed=7',
        '--arg',
        'Finish=matte',
        '--arg',
        'Mode=fast',
        '--arg',
        'Coating=Oil, Wax',
      ]),
    ).toMatchObject({
      code: 0,
      stdout: 'gear:g1 mode=Fast coating=Oil, Wax speed=7 finish=Matte\n',
    });
  });

  it(`refuses a dynamic parameter out of its range before pwsh runs ${PWSH_TEST_TAG}`, () => {
    const refused = mcp(['call', 'Invoke_Gear', '--arg', 'Name=g1', '--arg', 'Speed=11']);
    expect(refused.code).not.toBe(0);
    // The schema's maximum from the dynamic parameter's ValidateRange, not pwsh's own message.
    expect(refused.stderr).toContain('/Speed must be <= 10');
  });
});
