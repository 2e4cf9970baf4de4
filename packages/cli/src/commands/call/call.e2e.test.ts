import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { runMcp } from '../../testing/run-mcp.ts';
import { withoutPwsh } from '../../testing/without-pwsh.ts';

const examples = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', 'examples');

const mcp = (args: string[], dir = examples, env?: NodeJS.ProcessEnv) =>
  runMcp(['-C', dir, 'call', ...args], { cwd: dir, env });

/** What git sees as new in examples/: a test leaves nothing there but ignored files. */
const untrackedInExamples = () =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', examples], {
    cwd: examples,
    encoding: 'utf8',
  });

describe('mcp call', () => {
  it('calls a JS module tool with --args and prints its result', () => {
    expect(mcp(['add_numbers', '--args', '{"numbers": [1, 2, 3.5]}'])).toMatchObject({
      code: 0,
      stdout: '{"sum":6.5}\n',
    });
  });

  it('prints the CallToolResult with --json, structured output included', () => {
    const { code, stdout } = mcp([
      'convert_temperature',
      '--arg',
      'value=100',
      '--arg',
      'from_unit=C',
      '--arg',
      'to_unit=F',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      content: [{ type: 'text', text: '{"value": 212.0, "unit": "F"}' }],
      structuredContent: { value: 212, unit: 'F' },
    });
  });

  it('reads --arg values by the parameter type', () => {
    expect(mcp(['slugify', '--arg', 'title=Héllo, World!', '--arg', 'max_length=5']).stdout).toBe(
      '{"slug":"hello"}\n',
    );
    expect(mcp(['word_count', '--arg', 'text=007']).stdout).toContain('"words": 1');
  });

  it('exits 1 with the schema path when the arguments are invalid', () => {
    const { code, stderr } = mcp([
      'convert_temperature',
      '--args',
      '{"value": 1, "from_unit": "X", "to_unit": "C"}',
    ]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'Invalid arguments for tool "convert_temperature": /from_unit must be one of "C", "F", "K".\n',
    );
  });

  it('runs a workflow and reports its failing step', () => {
    // Without pwsh the first step, a PowerShell tool, fails: the same on every machine.
    const { code, stderr } = mcp(
      ['workflow_prepare_release', '--arg', 'current=1.2.3'],
      examples,
      withoutPwsh(),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/progress 0\/2 step bump: bump_version/);
    expect(stderr).toMatch(/Workflow workflow_prepare_release stopped at step "bump"/);
  });

  it.skipIf(!hasPwsh)(
    `runs the examples' workflow to its end and leaves no untracked file in examples/ ${PWSH_TEST_TAG}`,
    () => {
      const before = untrackedInExamples();
      const { code, stdout, stderr } = mcp([
        'workflow_prepare_release',
        '--arg',
        'current=1.2.3',
        '--json',
      ]);
      expect(stderr).toMatch(/progress 1\/2 step announce: send_notification/);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).structuredContent).toMatchObject({
        version: '1.2.4',
        notification: { level: 'info', delivered: true },
      });
      // send_notification appended to examples/.bot/notifications.log, which git ignores.
      expect(untrackedInExamples()).toBe(before);
    },
  );

  it('answers the built-ins', () => {
    const { code, stdout } = mcp(['find_tools', '--arg', 'query=temperature', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).structuredContent.tools[0].name).toBe('convert_temperature');
  });

  it('exits 2 for an unknown tool, bad JSON, or both --args and --arg', () => {
    expect(mcp(['convert_temperatur'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Did you mean convert_temperature'),
    });
    expect(mcp(['add_numbers', '--args', '{nope'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--args is not valid JSON'),
    });
    expect(mcp(['add_numbers', '--args', '{}', '--arg', 'a=1']).code).toBe(2);
    expect(mcp(['slugify', '--arg', 'max_length=many', '--arg', 'title=x']).code).toBe(2);
  });

  it('stops a tool at --timeout and says so', () => {
    const started = Date.now();
    const { code, stderr } = mcp(['wait', '--arg', 'ms=20000', '--timeout', '500']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/timed out|did not finish/i);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('runs a .bas tool with the interpreter configured in toolpack.yaml', () => {
    // Run on a copy: mcp writes its discovery cache into the project, and tests never write
    // under src/.
    const fixture = path.join(import.meta.dirname, '..', '..', 'fixtures', 'interpreted');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-interpreted-'));
    try {
      cpSync(fixture, dir, {
        recursive: true,
        filter: (source) => path.basename(source) !== '.toolpack',
      });
      expect(mcp(['greet', '--arg', 'name=Ada'], dir)).toMatchObject({
        code: 0,
        stdout: '{"interpreted":true,"greeting":"Hello, Ada"}\n',
      });
      expect(existsSync(path.join(dir, '.toolpack', 'cache'))).toBe(true);
      expect(existsSync(path.join(fixture, '.toolpack'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
