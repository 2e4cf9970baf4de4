import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, DiscoveredTool } from '@toolpack/core';
import { startHttpServer, type HttpServerHandle, type ToolpackServer } from '@toolpack/server';
import { createTestFinder, type ToolTestFile } from './find-tool-tests.ts';
import {
  NODE_HELPER_FILE,
  NODE_TEST_HELPER,
  POWERSHELL_HELPERS_FILE,
  POWERSHELL_RUNNER_FILE,
  POWERSHELL_TEST_HELPERS,
  POWERSHELL_TEST_RUNNER,
} from './helper-sources.ts';
import { judgeSmokeResult } from './judge-smoke-result.ts';
import { runTestFile, type TestFileOutcome } from './run-test-file.ts';
import { generateSmokeArguments } from './smoke-arguments.ts';

export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface ToolTestResult {
  /** The tool name; for a tool that did not load, its file (and line). */
  name: string;
  status: TestStatus;
  /** `test`: its test files ran; `smoke`: called with generated arguments; `load`: refused at load. */
  kind: 'test' | 'smoke' | 'load';
  reason?: string;
  /** The test files, as shown (relative to the project). */
  files?: string[];
  /** The smoke test's arguments. */
  arguments?: Record<string, unknown>;
  durationMs: number;
  /** What a failing test file printed (its tail). */
  output?: string;
  /** The part of `output` that says why it failed. */
  detail?: string;
}

export interface RunToolTestsOptions {
  toolpack: ToolpackServer;
  tools: readonly DiscoveredTool[];
  /** Error diagnostics: each is a tool that did not load, reported as a failure. */
  loadErrors: readonly Diagnostic[];
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  smokeTimeoutMs: number;
  testTimeoutMs: number;
  pwshPath: string | undefined;
  /** `mcp serve` over stdio for the same sources: dotbot's `-Process` tests talk to it. */
  serveCommand: readonly string[];
  showPath(file: string): string;
  signal: AbortSignal;
}

export interface ToolTestRun {
  /** One per tool, then one per load error, in that order; each settles when known. */
  results: Promise<ToolTestResult>[];
  /** Stops the test server and removes the helpers. Call after every result settled. */
  close(): Promise<void>;
}

/** A tiny semaphore: at most `size` test processes at once on a small machine. */
function createLimiter(size: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/**
 * Runs every tool's tests: its test files when it has some (each file once, however many
 * tools share it), otherwise a smoke call with arguments made from its schema. Test files
 * get a running server: TOOLPACK_TEST_SERVER (Streamable HTTP, a bearer token in
 * TOOLPACK_TEST_TOKEN), TOOLPACK_TEST_HELPER (a node module to call it) and, for PowerShell,
 * helpers dot-sourced by the runner script.
 */
export function runToolTests(options: RunToolTestsOptions): ToolTestRun {
  const finder = createTestFinder();
  const limit = createLimiter(Math.max(2, availableParallelism()));
  const token = randomBytes(24).toString('base64url');
  let setup: Promise<{ dir: string; server: HttpServerHandle }> | undefined;
  const prepare = () =>
    (setup ??= (async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'toolpack-test-'));
      await Promise.all([
        writeFile(path.join(dir, NODE_HELPER_FILE), NODE_TEST_HELPER),
        writeFile(path.join(dir, POWERSHELL_HELPERS_FILE), POWERSHELL_TEST_HELPERS),
        writeFile(path.join(dir, POWERSHELL_RUNNER_FILE), POWERSHELL_TEST_RUNNER),
      ]);
      const server = await startHttpServer(options.toolpack, { host: '127.0.0.1', port: 0, token });
      return { dir, server };
    })());

  const fileRuns = new Map<string, Promise<TestFileOutcome>>();
  const runFile = (file: ToolTestFile): Promise<TestFileOutcome> => {
    let run = fileRuns.get(file.path);
    if (run === undefined) {
      run = limit(async () => {
        if (file.runner === 'pwsh' && options.pwshPath === undefined) {
          return runTestFile(file, { ...fileOptions(), powershellRunner: '' });
        }
        const { dir, server } = await prepare();
        return runTestFile(file, {
          ...fileOptions(),
          powershellRunner: path.join(dir, POWERSHELL_RUNNER_FILE),
          env: {
            ...options.env,
            TOOLPACK_TEST_SERVER: server.url,
            TOOLPACK_TEST_TOKEN: token,
            TOOLPACK_TEST_HELPER: pathToFileURL(path.join(dir, NODE_HELPER_FILE)).href,
            TOOLPACK_TEST_SERVE: JSON.stringify(options.serveCommand),
            TOOLPACK_PROJECT_ROOT: options.projectRoot,
          },
        });
      });
      fileRuns.set(file.path, run);
    }
    return run;
  };
  const fileOptions = () => ({
    projectRoot: options.projectRoot,
    env: options.env,
    timeoutMs: options.testTimeoutMs,
    pwshPath: options.pwshPath,
    signal: options.signal,
  });

  const testTool = async (tool: DiscoveredTool): Promise<ToolTestResult> => {
    const files = await finder.find(tool);
    if (files.length > 0)
      return combineFileOutcomes(tool.name, files, await Promise.all(files.map(runFile)));
    return smokeTest(tool);
  };

  const smokeTest = async (tool: DiscoveredTool): Promise<ToolTestResult> => {
    const base = { name: tool.name, kind: 'smoke' as const };
    if (tool.annotations?.destructiveHint === true) {
      return {
        ...base,
        status: 'skipped',
        reason: 'destructive (destructiveHint): smoke tests never call it; add a test',
        durationMs: 0,
      };
    }
    if (tool.invocation.runner === 'workflow') {
      // A workflow is as destructive as its steps.
      const byName = new Map(options.toolpack.tools.map((t) => [t.name, t]));
      const step = tool.invocation.workflow.steps.find(
        (s) => byName.get(s.tool)?.annotations?.destructiveHint === true,
      );
      if (step !== undefined) {
        return {
          ...base,
          status: 'skipped',
          reason: `its step "${step.id}" calls ${step.tool}, which is destructive (destructiveHint): smoke tests never call it; add a test`,
          durationMs: 0,
        };
      }
    }
    if (tool.invocation.runner === 'pwsh' && options.pwshPath === undefined) {
      return {
        ...base,
        status: 'skipped',
        reason: 'needs PowerShell 7 (pwsh), which is not on PATH',
        durationMs: 0,
      };
    }
    const generated = generateSmokeArguments(tool.inputSchema);
    if (!generated.ok) {
      return {
        ...base,
        status: 'failed',
        reason: `the smoke test could not make arguments: ${generated.problem}; give the parameter an example, or add a test`,
        durationMs: 0,
      };
    }
    const args = generated.args;
    const started = Date.now();
    // The runner stops the call at the timeout; this is the backstop for anything that
    // does not come back (a workflow step, a wedged host).
    const abort = new AbortController();
    const stopOnCancel = () => abort.abort();
    options.signal.addEventListener('abort', stopOnCancel, { once: true });
    let backstop: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race([
        options.toolpack
          .callTool(tool.name, args, { timeoutMs: options.smokeTimeoutMs, signal: abort.signal })
          .then((result) => ({ result }))
          .catch((error: unknown) => ({ error: error as Error })),
        new Promise<{ late: true }>((resolve) => {
          backstop = setTimeout(() => {
            abort.abort();
            resolve({ late: true });
          }, options.smokeTimeoutMs + 5_000);
        }),
      ]);
      const durationMs = Date.now() - started;
      if ('late' in outcome) {
        return {
          ...base,
          arguments: args,
          status: 'failed',
          reason: `no answer within ${options.smokeTimeoutMs} ms for ${JSON.stringify(args)}, and the call could not be stopped`,
          durationMs,
        };
      }
      if ('error' in outcome) {
        return {
          ...base,
          arguments: args,
          status: 'failed',
          reason: `the call failed before the tool answered: ${outcome.error.message}`,
          durationMs,
        };
      }
      const verdict = judgeSmokeResult(tool, outcome.result, {
        args,
        timeoutMs: options.smokeTimeoutMs,
      });
      return { ...base, arguments: args, ...verdict, durationMs };
    } finally {
      clearTimeout(backstop);
      options.signal.removeEventListener('abort', stopOnCancel);
    }
  };

  const combineFileOutcomes = (
    name: string,
    files: ToolTestFile[],
    outcomes: TestFileOutcome[],
  ): ToolTestResult => {
    const shown = files.map((file) => options.showPath(file.path));
    const durationMs = Math.max(0, ...outcomes.map((o) => o.durationMs));
    const failed = outcomes.filter((o) => o.status === 'failed');
    if (failed.length > 0) {
      return {
        name,
        kind: 'test',
        files: shown,
        status: 'failed',
        reason: failed.map((o) => o.reason).join('; '),
        output: failed.map((o) => o.output).join('\n'),
        detail: failed
          .map((o) => o.detail ?? '')
          .filter((d) => d !== '')
          .join('\n'),
        durationMs,
      };
    }
    if (outcomes.every((o) => o.status === 'skipped')) {
      return {
        name,
        kind: 'test',
        files: shown,
        status: 'skipped',
        reason: [...new Set(outcomes.map((o) => o.reason))].join('; '),
        durationMs,
      };
    }
    return { name, kind: 'test', files: shown, status: 'passed', durationMs };
  };

  const results: Promise<ToolTestResult>[] = [
    ...options.tools.map((tool) =>
      testTool(tool).catch((error: unknown): ToolTestResult => ({
        name: tool.name,
        kind: 'test',
        status: 'failed',
        reason: `mcp test itself failed on this tool: ${(error as Error).message}`,
        durationMs: 0,
      })),
    ),
    ...options.loadErrors.map((d) =>
      Promise.resolve<ToolTestResult>({
        name: `${options.showPath(d.path)}${d.line === undefined ? '' : `:${d.line}`}`,
        kind: 'load',
        status: 'failed',
        reason: `not loaded: ${d.message}${d.hint === undefined ? '' : ` (fix: ${d.hint})`}`,
        durationMs: 0,
      }),
    ),
  ];

  return {
    results,
    async close() {
      if (setup === undefined) return;
      const { dir, server } = await setup.catch(() => ({ dir: undefined, server: undefined }));
      await server?.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}
