import { Command } from 'commander';
import { ToolpackError, formatDiagnostic, type SourceSpec } from '@toolpack/core';
import { createToolpackServer } from '@toolpack/server';
import { MANIFEST_FILE } from '@toolpack/packs';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { parseTimeout } from '../../option-parsers.ts';
import { addSourceFlags, resolveSources, type SourceFlagValues } from '../../source-flags.ts';
import { displayPath } from '../../tool-view.ts';
import { findOnPath } from './find-on-path.ts';
import { runToolTests, type ToolTestResult } from './run-tool-tests.ts';

interface TestFlags extends SourceFlagValues {
  timeout: number;
  testTimeout: number;
  json?: boolean;
}

const DEFAULT_SMOKE_TIMEOUT_MS = 10_000;
const DEFAULT_TEST_TIMEOUT_MS = 120_000;

/** The command line of `mcp serve` over stdio for the same sources (dotbot's `-Process` tests). */
function buildServeCommand(
  sources: readonly SourceSpec[],
  flags: SourceFlagValues,
  cwd: string,
): string[] {
  const args: string[] = [];
  for (const source of sources) {
    if ('tools' in source) args.push('--tools-dir', source.tools);
    else if ('scripts' in source) args.push('--script-root', source.scripts);
    else if ('module' in source) args.push('--module', source.module);
    else args.push('--workflows', source.workflows);
  }
  for (const pattern of flags.include ?? []) args.push('--include', pattern);
  for (const pattern of flags.exclude ?? []) args.push('--exclude', pattern);
  if (flags.prefix) args.push('--prefix');
  if (flags.strict) args.push('--strict');
  if (flags.cache === false) args.push('--no-cache');
  const cli = process.argv[1] ?? 'mcp';
  return [
    process.execPath,
    ...process.execArgv,
    cli,
    '-C',
    cwd,
    'serve',
    '--no-watch',
    '--max-tools',
    String(1_000_000),
    ...args,
  ];
}

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
    const resolved = await resolveSources(sources, flags, io);
    if (resolved.origin === 'none') {
      throw new ToolpackError(
        'E_USAGE',
        `Nothing to test: no source flags and no ${MANIFEST_FILE} here.`,
        {
          hint: 'Pass --tools-dir, --script-root, --module or --workflows, or run mcp test in a project folder.',
        },
      );
    }
    const toolpack = await createToolpackServer({
      // Every tool is tested, however many there are; the policy limits clients, not tests.
      discovery: { ...resolved.options, maxTools: Number.MAX_SAFE_INTEGER },
      runner: {
        envAllowList: resolved.envAllowList,
        ...(resolved.interpreters === undefined ? {} : { interpreters: resolved.interpreters }),
      },
      metrics: false,
      watch: false,
    });
    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    process.once('SIGINT', onInterrupt);
    const paint = createPainter(io.stdout, io.env);
    const errPaint = createPainter(io.stderr, io.env);
    try {
      const diagnostics = [...resolved.diagnostics, ...toolpack.diagnostics];
      for (const d of diagnostics.filter((x) => x.severity === 'warning')) {
        io.stderr.write(
          `${errPaint('yellow', formatDiagnostic({ ...d, path: displayPath(d.path, io.cwd) }))}\n`,
        );
      }
      const tools = toolpack.tools.filter(
        (tool) => tool.source.kind !== 'builtin' && tool.source.pack === undefined,
      );
      const loadErrors = diagnostics.filter((d) => d.severity === 'error');
      const run = runToolTests({
        toolpack,
        tools,
        loadErrors,
        projectRoot: io.cwd,
        env: io.env,
        smokeTimeoutMs: flags.timeout,
        testTimeoutMs: flags.testTimeout,
        pwshPath: findOnPath('pwsh', io.env),
        serveCommand: buildServeCommand(sources, flags, io.cwd),
        showPath: (file) => displayPath(file, io.cwd),
        signal: abort.signal,
      });
      const nameWidth = Math.max(
        0,
        ...tools.map((tool) => tool.name.length),
        ...loadErrors.map((d) => displayPath(d.path, io.cwd).length + 6),
      );
      const results: ToolTestResult[] = [];
      try {
        // In order, each as soon as it and those before it are known.
        for (const pending of run.results) {
          const result = await pending;
          results.push(result);
          if (flags.json) continue;
          io.stdout.write(`${renderResultLine(result, Math.min(nameWidth, 48), paint)}\n`);
          if (
            result.status === 'failed' &&
            result.detail !== undefined &&
            result.detail.trim() !== ''
          ) {
            io.stdout.write(renderDetail(result.detail, paint));
          }
        }
      } finally {
        await run.close();
      }
      const summary = {
        passed: results.filter((r) => r.status === 'passed').length,
        failed: results.filter((r) => r.status === 'failed').length,
        skipped: results.filter((r) => r.status === 'skipped').length,
      };
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
      await toolpack.close();
    }
  });
  return command;
}
