import { ToolpackError, type Diagnostic, type SourceSpec } from '@toolpack/core';
import { createToolpackServer } from '@toolpack/server';
import { MANIFEST_FILE } from '@toolpack/packs';
import type { CommandContext } from '../../io.ts';
import { resolveSources, type SourceFlagValues } from '../../source-flags.ts';
import { displayPath } from '../../tool-view.ts';
import { findOnPath } from '../../find-on-path.ts';
import { runToolTests, type ToolTestResult } from './run-tool-tests.ts';

export interface TestToolsOptions extends CommandContext {
  sources: SourceSpec[];
  flags: SourceFlagValues;
  /** How long one smoke-test call may take. */
  smokeTimeoutMs: number;
  /** How long one test file may run. */
  testTimeoutMs: number;
  signal?: AbortSignal;
  /**
   * Called once the tools are loaded, before any test runs, with the names results will carry:
   * the tools', and the files that failed to load (paths relative to the project).
   */
  onStart?: (names: { tools: string[]; loadErrorPaths: string[] }) => void;
  /** Each warning of the sources (paths relative to the project), before any test runs. */
  onWarning?: (warning: Diagnostic) => void;
  /** Each result in order, as soon as it and those before it are known. */
  onResult?: (result: ToolTestResult) => void;
}

/** What `mcp test --json` prints; the run fails when any test failed. */
export interface ToolTestReport {
  results: ToolTestResult[];
  summary: { passed: number; failed: number; skipped: number };
}

/**
 * Runs every tool's tests (test files beside the tools, with a running server) and a
 * schema-driven smoke test for each tool that has none. Tools of installed packs are not tested.
 */
export async function testTools(options: TestToolsOptions): Promise<ToolTestReport> {
  const { cwd, env, sources, flags } = options;
  const resolved = await resolveSources({ sources, flags, cwd });
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
  try {
    const diagnostics = [...resolved.diagnostics, ...toolpack.diagnostics];
    const tools = toolpack.tools.filter(
      (tool) => tool.source.kind !== 'builtin' && tool.source.pack === undefined,
    );
    const loadErrors = diagnostics.filter((d) => d.severity === 'error');
    options.onStart?.({
      tools: tools.map((tool) => tool.name),
      loadErrorPaths: loadErrors.map((d) => displayPath(d.path, cwd)),
    });
    for (const d of diagnostics.filter((x) => x.severity === 'warning'))
      options.onWarning?.({ ...d, path: displayPath(d.path, cwd) });
    const run = runToolTests({
      toolpack,
      tools,
      loadErrors,
      projectRoot: cwd,
      env,
      smokeTimeoutMs: options.smokeTimeoutMs,
      testTimeoutMs: options.testTimeoutMs,
      pwshPath: findOnPath('pwsh', env),
      serveCommand: buildServeCommand(sources, flags, cwd),
      showPath: (file) => displayPath(file, cwd),
      signal: options.signal ?? new AbortController().signal,
    });
    const results: ToolTestResult[] = [];
    try {
      for (const pending of run.results) {
        const result = await pending;
        results.push(result);
        options.onResult?.(result);
      }
    } finally {
      await run.close();
    }
    return {
      results,
      summary: {
        passed: results.filter((r) => r.status === 'passed').length,
        failed: results.filter((r) => r.status === 'failed').length,
        skipped: results.filter((r) => r.status === 'skipped').length,
      },
    };
  } finally {
    await toolpack.close();
  }
}

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
