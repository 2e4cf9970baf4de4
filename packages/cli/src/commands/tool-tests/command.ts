import { Command } from 'commander';
import { formatDiagnostic, type SourceSpec } from '@toolpack/core';
import { MANIFEST_FILE } from '@toolpack/packs';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { parseTimeout } from '../../option-parsers.ts';
import { addSourceFlags, type SourceFlagValues } from '../../source-flags.ts';
import { testTools } from './index.ts';
import type { ToolTestResult } from './run-tool-tests.ts';

interface TestFlags extends SourceFlagValues {
  timeout: number;
  testTimeout: number;
  json?: boolean;
}

const DEFAULT_SMOKE_TIMEOUT_MS = 10_000;
const DEFAULT_TEST_TIMEOUT_MS = 120_000;

function renderResultLine(
  result: ToolTestResult,
  nameWidth: number,
  paint: ReturnType<typeof createPainter>,
): string {
  const name = result.name.padEnd(nameWidth);
  if (result.status === 'passed') {
    const how =
      result.kind === 'smoke'
        ? `smoke ${truncate(JSON.stringify(result.arguments ?? {}), 60)}`
        : (result.files ?? []).join(', ');
    return `${paint('green', 'ok  ')} ${name}  ${paint('dim', `(${how})`)}`;
  }
  const label = result.status === 'failed' ? paint('red', 'FAIL') : paint('yellow', 'skip');
  return `${label} ${name}  ${result.reason ?? ''}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Why a test file failed, indented under its FAIL line. */
function renderDetail(detail: string, paint: ReturnType<typeof createPainter>): string {
  return detail
    .split(/\r?\n/)
    .slice(0, 20)
    .map((line) => `     ${paint('dim', truncate(line, 200))}\n`)
    .join('');
}

export function createTestCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('test')
    .description("Run every tool's tests; smoke-test each tool that has none")
    .option(
      '--timeout <ms>',
      'how long one smoke-test call may take, in milliseconds',
      parseTimeout,
      DEFAULT_SMOKE_TIMEOUT_MS,
    )
    .option(
      '--test-timeout <ms>',
      'how long one test file may run, in milliseconds',
      parseTimeout,
      DEFAULT_TEST_TIMEOUT_MS,
    )
    .option('--json', 'print {"results": [...], "summary": {"passed", "failed", "skipped"}}');
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
What runs, per tool:
  test.ps1 in a dotbot tool folder, X.test.ps1 beside a script X.ps1 or module X.psm1
      pwsh, with $env:TOOLPACK_TEST_SERVER (a running MCP server with the tools) and
      Invoke-ToolpackTool -Name x -Arguments @{...} / Assert-ToolpackEqual dot-sourced.
      dotbot's own tests that take -Process get a stdio server process instead. Fails when
      it throws or exits non-zero; skipped (not failed) where pwsh is not installed.
  X.test.mjs|js|ts beside a script or module X, test.mjs|ts in a tool folder
      node --test, with TOOLPACK_TEST_SERVER and TOOLPACK_TEST_HELPER (import it for
      callTool(name, args) and listTools()).
  anything else: a smoke test. Arguments are made from the input schema (examples,
      defaults, enums, else the smallest values that fit); the tool must answer without
      an error within --timeout. Tools marked destructiveHint are skipped, never called.
A tool that fails to load is a failure. Tools of installed packs are not tested here.

Examples:
  mcp test                                   # the sources of ./${MANIFEST_FILE}
  mcp test --tools-dir systems/mcp/tools
  mcp test --script-root scripts --include 'Get-*' --timeout 30000
  mcp test --module tools.ts --json

Exit codes: 0 every test passed (or was skipped), 1 a test failed, 2 bad flags or no
sources.`,
  );
  command.action(async (flags: TestFlags) => {
    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    const paint = createPainter(io.stdout, io.env);
    const errPaint = createPainter(io.stderr, io.env);
    let nameWidth = 0;
    try {
      const { results, summary } = await testTools({
        cwd: io.cwd,
        env: io.env,
        sources,
        flags,
        smokeTimeoutMs: flags.timeout,
        testTimeoutMs: flags.testTimeout,
        signal: abort.signal,
        onStart: ({ tools, loadErrorPaths }) => {
          process.once('SIGINT', onInterrupt);
          nameWidth = Math.max(
            0,
            ...tools.map((name) => name.length),
            ...loadErrorPaths.map((file) => file.length + 6),
          );
        },
        onWarning: (d) => io.stderr.write(`${errPaint('yellow', formatDiagnostic(d))}\n`),
        onResult: (result) => {
          if (flags.json) return;
          io.stdout.write(`${renderResultLine(result, Math.min(nameWidth, 48), paint)}\n`);
          if (
            result.status === 'failed' &&
            result.detail !== undefined &&
            result.detail.trim() !== ''
          ) {
            io.stdout.write(renderDetail(result.detail, paint));
          }
        },
      });
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ results, summary }, null, 2)}\n`);
      } else {
        if (results.length === 0) io.stdout.write('No tools to test.\n');
        io.stdout.write(
          `${summary.passed} passed, ${summary.failed} failed${summary.skipped > 0 ? `, ${summary.skipped} skipped` : ''}\n`,
        );
      }
      done(summary.failed > 0 ? EXIT_FAILURE : EXIT_OK);
    } finally {
      process.off('SIGINT', onInterrupt);
    }
  });
  return command;
}
