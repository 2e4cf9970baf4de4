import path from 'node:path';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { startMcp } from '../../testing/run-mcp.ts';
import { withoutPwsh } from '../../testing/without-pwsh.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');
const examples = path.join(repo, 'examples');
const fixtures = path.join(import.meta.dirname, 'fixtures');

// --no-cache: no .toolpack/cache left in the examples and fixtures.
const mcp = (args: string[], cwd: string, env?: NodeJS.ProcessEnv) =>
  startMcp([...args, ...(args[0] === 'test' ? ['--no-cache'] : [])], { cwd, env });

interface Report {
  results: {
    name: string;
    status: string;
    kind: string;
    reason?: string;
    arguments?: unknown;
    files?: string[];
  }[];
  summary: { passed: number; failed: number; skipped: number };
}

describe.concurrent('mcp test', () => {
  it('smoke-tests examples/scripts: one ok line per tool and the summary', async () => {
    const { code, stdout } = await mcp(['test'], path.join(examples, 'scripts'));
    expect(stdout).toBe(
      [
        'ok   convert_temperature  (smoke {"value":21.5,"from_unit":"C","to_unit":"C"})',
        'ok   slugify              (smoke {"title":"Hello, World!"})',
        'ok   word_count           (smoke {"text":"one two three"})',
        '3 passed, 0 failed',
        '',
      ].join('\n'),
    );
    expect(code).toBe(0);
  });

  it('smoke-tests examples/js-tools, wait included, well within the timeout', async () => {
    const { code, stdout, ms } = await mcp(
      ['test', '--timeout', '5000', '--json'],
      path.join(examples, 'js-tools'),
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report;
    expect(report.results).toEqual([
      expect.objectContaining({
        name: 'add_numbers',
        kind: 'smoke',
        status: 'passed',
        arguments: { numbers: [0] },
      }),
      expect.objectContaining({
        name: 'count_calls',
        kind: 'smoke',
        status: 'passed',
        arguments: {},
      }),
      expect.objectContaining({
        name: 'wait',
        kind: 'smoke',
        status: 'passed',
        arguments: { ms: 0 },
      }),
    ]);
    expect(report.summary).toEqual({ passed: 3, failed: 0, skipped: 0 });
    expect(ms).toBeLessThan(20_000);
  });

  it('stops a smoke call at --timeout and fails it', async () => {
    const { code, stdout, ms } = await mcp(
      ['test', '--script-root', 'slow', '--timeout', '500'],
      fixtures,
    );
    expect(stdout).toBe(
      [
        'FAIL sleepy  no answer within 500 ms for {}: the call was stopped (raise --timeout if it needs longer)',
        '0 passed, 1 failed',
        '',
      ].join('\n'),
    );
    expect(code).toBe(1);
    expect(ms).toBeLessThan(15_000);
  });

  it('exits 1 with a FAIL line for a failing test file, and for a tool that answers with an error', async () => {
    const { code, stdout } = await mcp(['test', '--script-root', 'failing'], fixtures);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^FAIL quiet {2}answered with an error for \{"text":"example"\}: Tool "quiet" failed.*quiet has nothing to say/m,
    );
    expect(stdout).toMatch(
      /^FAIL shout {2}shout\.test\.mjs: "shout whispers \(it does not\)" failed: Expected values to be strictly deep-equal:$/m,
    );
    // The assertion's expected/actual, indented under the FAIL line.
    expect(stdout).toMatch(/^ {5}expected:\n {7}shout: 'hey'\n {5}actual:\n {7}shout: 'HEY'$/m);
    expect(stdout).toMatch(/^0 passed, 2 failed$/m);
  });

  it('fails a tool that does not load, and still tests the others', async () => {
    const { code, stdout } = await mcp(['test', '--script-root', 'broken'], fixtures);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ok {3}fine +\(smoke \{\}\)$/m);
    expect(stdout).toMatch(
      /^FAIL broken\/bad\.mjs:2 +not loaded: PARAM count has the unknown type "nmber"\./m,
    );
    expect(stdout).toMatch(/^1 passed, 1 failed$/m);
  });

  it.skipIf(!hasPwsh)(
    `gives dotbot-style tests a stdio server command (TOOLPACK_TEST_SERVE) that answers line by line ${PWSH_TEST_TAG}`,
    async () => {
      const { code, stdout } = await mcp(['test', '--tools-dir', 'dotbot-process/tools'], fixtures);
      expect(stdout).toMatch(
        /^ok {3}echo_text {2}\(dotbot-process\/tools\/echo-text\/test\.mjs\)$/m,
      );
      // A test.ps1 with a -Process parameter gets the server process.
      expect(stdout).toMatch(/^ok {3}echo_ps {4}\(dotbot-process\/tools\/echo-ps\/test\.ps1\)$/m);
      expect(code).toBe(0);
    },
  );

  it('reports test.ps1 files as skipped with the reason where pwsh is missing', async () => {
    const { code, stdout } = await mcp(
      ['test', '--tools-dir', 'pwsh-helpers/tools', '--json'],
      fixtures,
      withoutPwsh(),
    );
    const report = JSON.parse(stdout) as Report;
    expect(report.results.map(({ name, status, reason }) => ({ name, status, reason }))).toEqual(
      ['grumble', 'shout', 'whisper'].map((name) => ({
        name,
        status: 'skipped',
        reason: 'test.ps1 needs PowerShell 7 (pwsh), which is not on PATH',
      })),
    );
    expect(code).toBe(0);
  });

  it.skipIf(!hasPwsh)(
    `runs test.ps1 with the helpers and reports a failure at the test's line, not the helper's ${PWSH_TEST_TAG}`,
    async () => {
      const { code, stdout } = await mcp(['test', '--tools-dir', 'pwsh-helpers/tools'], fixtures);
      expect(stdout).toMatch(/^ok {3}shout {4}\(pwsh-helpers\/tools\/shout\/test\.ps1\)$/m);
      // Assert-ToolpackEqual's throw, at the test.ps1 line that called it.
      expect(stdout).toMatch(
        /^FAIL whisper {2}test\.ps1: Assertion failed: whispers in capitals\. Expected "HEY", got "hey"\. \(at \S*pwsh-helpers[\\/]tools[\\/]whisper[\\/]test\.ps1:3\)$/m,
      );
      // Invoke-ToolpackTool's throw on an error result, likewise.
      expect(stdout).toMatch(
        /^FAIL grumble {2}test\.ps1: grumble answered with an error: .*exited with code 3.* \(at \S*pwsh-helpers[\\/]tools[\\/]grumble[\\/]test\.ps1:3\)$/m,
      );
      expect(stdout).not.toMatch(/toolpack-test-helpers\.ps1/);
      expect(stdout).toMatch(/^1 passed, 2 failed$/m);
      expect(code).toBe(1);
    },
  );

  it('exits 2 without sources, with a hint', async () => {
    const { code, stderr } = await mcp(['test'], fixtures);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /Nothing to test: no source flags and no toolpack\.yaml here\.\nhint: Pass --tools-dir/,
    );
  });

  it('explains itself in --help, with examples and exit codes', async () => {
    const { code, stdout } = await mcp(['test', '--help'], fixtures);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Examples:\n {2}mcp test /);
    expect(stdout).toMatch(/Exit codes: 0 every test passed/);
  });
});
