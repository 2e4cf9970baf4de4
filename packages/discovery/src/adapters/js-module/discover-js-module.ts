import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  buildCompileCacheEnvironment,
  buildToolEnvironment,
  describeSandbox,
  findInstallFolder,
  planSandbox,
  spawnContained,
  type ContainedProcess,
  type SandboxPlan,
} from '@toolpack/containment';
import {
  ToolpackError,
  createDiagnostic,
  findSchemaProblems,
  pickConditionFlags,
  readNodeOptionsConditionFlags,
  type Diagnostic,
  type DiscoveredTool,
  type ToolDefinition,
  type ToolSandbox,
} from '@toolpack/core';
import { createDiscoveryAbortedError, throwIfDiscoveryAborted } from '../../discovery-aborted.ts';
import { resolveAsset } from '../../package-assets.ts';
import type { ParseCache, SourceResult } from '../../types.ts';

export const JS_MODULE_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'] as const;

const LIST_TIMEOUT_MS = 15_000;

/** A tool as the loader child lists it: the definition without its source, and its export. */
type ListedTool = Omit<ToolDefinition, 'source'> & { exportName: string };

type ListAnswer =
  | { tools: ListedTool[]; exportNames: string[] }
  | { error: { message: string; code?: string } }
  | { aborted: true };

export interface DiscoverJsModuleOptions {
  /** The module file, absolute or relative to `cwd`. */
  module: string;
  cwd: string;
  /**
   * Stops the listing: the child importing the module is killed and the call rejects with
   * `E_DISCOVERY_ABORTED`, instead of waiting up to 15 s for a module that loads slowly.
   */
  signal?: AbortSignal;
  /**
   * Names (or `PREFIX*` patterns) the importing child inherits besides the default
   * allow-list, as a tool run does (installed packs' declared `env`). Never the whole
   * environment: a module's top-level code runs there.
   */
  envAllowList?: readonly string[];
  /**
   * The module's sandbox (a pack's, or a `sandbox: true` source's): its top-level code runs
   * confined as its tools do, with its own declared environment names instead of
   * `envAllowList`, so listing a pack's tools lends it nothing its calls would not get.
   */
  sandbox?: ToolSandbox;
  /** With `sandbox`: where the OS sandbox cannot be had, refuse to import the module at all. */
  requireSandbox?: boolean;
  /**
   * Remembers which listed schemas were checked, by their content: the check's first use
   * compiles the JSON Schema meta-schema (70-90 ms of every start), and a module's schemas
   * rarely change between starts.
   */
  cache?: ParseCache;
}

/**
 * docs/js-ts-modules.md: every exported `defineTool(...)` value of a JS/TS module. The module
 * is imported in a child Node process, never in this one.
 */
export async function discoverJsModule(options: DiscoverJsModuleOptions): Promise<SourceResult> {
  const modulePath = path.resolve(options.cwd, options.module);
  const exists = await stat(modulePath).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!exists) {
    throw new ToolpackError('E_SOURCE_MISSING', `Module ${options.module} does not exist.`, {
      hint: 'Point --module (or `module:` in toolpack.yaml) at a .js/.ts file that exports defineTool(...) values.',
    });
  }
  throwIfDiscoveryAborted(options.signal);
  const answer = await listModuleTools(modulePath, options);
  if ('aborted' in answer) throw createDiscoveryAbortedError(options.signal);
  if ('error' in answer) {
    const refused = answer.error.code === 'E_SANDBOX_REQUIRED';
    return {
      tools: [],
      diagnostics: [
        createDiagnostic(
          'error',
          refused ? 'E_SANDBOX_REQUIRED' : 'E_MODULE_LOAD',
          `Importing ${path.basename(modulePath)} ${refused ? 'was refused' : 'failed'}: ${answer.error.message}`,
          { path: modulePath },
          refused
            ? 'Install bubblewrap (Linux), or drop --require-sandbox (policy: requireSandbox) to import it unconfined.'
            : answer.error.code !== 'ERR_MODULE_NOT_FOUND'
              ? 'Fix the error above; the module must import cleanly in plain Node.'
              : options.sandbox !== undefined
                ? 'A confined module sees its own folder and what its permissions grant, not the project’s node_modules: bundle its dependencies into the pack.'
                : 'Install the module’s dependencies (is @toolpack/core installed next to it?).',
        ),
      ],
    };
  }
  const text = await readFile(modulePath, 'utf8');
  const diagnostics: Diagnostic[] = [];
  const tools: DiscoveredTool[] = [];
  const seen = new Map<string, string>();
  for (const listed of answer.tools) {
    const line = findExportLine(text, listed.exportName);
    const where = { path: modulePath, ...(line === undefined ? {} : { line }) };
    const earlier = seen.get(listed.name);
    if (earlier !== undefined) {
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_DUPLICATE_TOOL',
          `Exports ${earlier} and ${listed.exportName} both define the tool ${listed.name}.`,
          where,
          'Give each tool its own name.',
        ),
      );
      continue;
    }
    seen.set(listed.name, listed.exportName);
    // defineTool checked these in the child, but the child runs the module's code and may say
    // anything: a pattern only a backtracking engine could run is refused here too.
    const schemaProblem = await checkListedSchemas(
      listed.inputSchema,
      listed.outputSchema,
      options.cache,
    );
    if (schemaProblem !== undefined) {
      diagnostics.push(
        createDiagnostic(
          'error',
          schemaProblem.code,
          `Tool ${listed.name}: the ${schemaProblem.role} schema is not valid JSON Schema: ${schemaProblem.problems.join('; ')}.`,
          where,
          'Patterns run in linear time (RE2): write them without back-references or lookaround (docs/json-schema-patterns.md).',
        ),
      );
      continue;
    }
    const tool: DiscoveredTool = {
      name: listed.name,
      description: listed.description,
      inputSchema: listed.inputSchema,
      source: { kind: 'js-module', ...where },
      invocation: { runner: 'node-worker', modulePath, exportName: listed.exportName },
      originalName: listed.name,
    };
    if (listed.title !== undefined) tool.title = listed.title;
    if (listed.outputSchema !== undefined) tool.outputSchema = listed.outputSchema;
    if (listed.annotations !== undefined) tool.annotations = listed.annotations;
    if (listed.timeoutMs !== undefined) tool.timeoutMs = listed.timeoutMs;
    if (listed.inputExamples !== undefined) tool.inputExamples = listed.inputExamples;
    if (listed.longRunning === true) tool.longRunning = true;
    if (listed.progressResetsTimeout === true) tool.progressResetsTimeout = true;
    tools.push(tool);
  }
  if (answer.tools.length === 0) {
    diagnostics.push(
      createDiagnostic(
        'warning',
        'W_NO_TOOLS',
        `${path.basename(modulePath)} exports no defineTool(...) values${answer.exportNames.length > 0 ? ` (it exports ${answer.exportNames.join(', ')})` : ''}.`,
        { path: modulePath },
        'Export each tool: export const myTool = defineTool({ ... }).',
      ),
    );
  }
  return { tools, diagnostics };
}

type ListedSchemaProblem = {
  code: 'E_INPUT_SCHEMA' | 'E_OUTPUT_SCHEMA';
  role: string;
  problems: string[];
};

/**
 * The check is a pure function of the two schemas, so its answer is kept under their hash
 * with no file behind it (the cache's entries end with the discovery version that made them).
 */
async function checkListedSchemas(
  inputSchema: unknown,
  outputSchema: unknown,
  cache: ParseCache | undefined,
): Promise<ListedSchemaProblem | undefined> {
  if (cache === undefined) return findListedSchemaProblem(inputSchema, outputSchema);
  const key = createHash('sha256')
    .update(JSON.stringify([inputSchema, outputSchema ?? null]))
    .digest('hex');
  const answer = await cache.read(
    `js-module-schema-check@1\u0000${key}`,
    [],
    () => findListedSchemaProblem(inputSchema, outputSchema) ?? null,
  );
  return answer ?? undefined;
}

function findListedSchemaProblem(
  inputSchema: unknown,
  outputSchema: unknown,
): ListedSchemaProblem | undefined {
  const inputProblems = findSchemaProblems(inputSchema);
  if (inputProblems.length > 0)
    return { code: 'E_INPUT_SCHEMA', role: 'input', problems: inputProblems };
  if (outputSchema === undefined) return undefined;
  const outputProblems = findSchemaProblems(outputSchema);
  if (outputProblems.length > 0)
    return { code: 'E_OUTPUT_SCHEMA', role: 'output', problems: outputProblems };
  return undefined;
}

function findExportLine(text: string, exportName: string): number | undefined {
  if (exportName === 'default') {
    const index = text.search(/export\s+default\b/);
    return index < 0 ? undefined : text.slice(0, index).split('\n').length;
  }
  // The name comes from the child, which runs the module's code: every character is literal,
  // or a name such as `(a|a)*$` would be a pattern run on the server's thread.
  const escaped = exportName.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const index = text.search(
    new RegExp(
      `export\\s+(const|let|var|function)\\s+${escaped}\\b|\\b${escaped}\\s*=\\s*defineTool\\b`,
    ),
  );
  return index < 0 ? undefined : text.slice(0, index).split('\n').length;
}

function listModuleTools(
  modulePath: string,
  options: DiscoverJsModuleOptions,
): Promise<ListAnswer> {
  const { signal } = options;
  // Keep the caller's module conditions (the workspace runs packages from source): from its
  // own flags, and from NODE_OPTIONS, which the allow-listed environment leaves out.
  const conditions = [...pickConditionFlags(process.execArgv), ...readNodeOptionsConditionFlags()];
  const loader = resolveAsset('list-module-tools.mjs');
  return new Promise((resolve) => {
    let contained: ContainedProcess;
    try {
      const { sandbox } = options;
      let plan: SandboxPlan | undefined;
      if (sandbox !== undefined) {
        if (options.requireSandbox === true) {
          const { available, reason } = describeSandbox();
          if (!available) {
            resolve({
              error: {
                code: 'E_SANDBOX_REQUIRED',
                message: `it runs confined, the sandbox is required, and ${reason}`,
              },
            });
            return;
          }
        }
        plan = planSandbox({
          sandbox,
          projectRoot: options.cwd,
          runtimePaths: [findInstallFolder(process.execPath), path.dirname(loader)],
        });
      }
      // Contained like a tool run: the allow-listed environment only (a confined module's own
      // declared names), and whatever its top-level code starts dies with the child, which
      // dies with this process.
      contained = spawnContained({
        command: process.execPath,
        args: [...conditions, loader, modulePath],
        cwd: path.dirname(modulePath),
        env: buildToolEnvironment({
          source: process.env,
          ...(sandbox !== undefined
            ? { allowList: sandbox.permissions.env }
            : options.envAllowList === undefined
              ? {}
              : { allowList: options.envAllowList }),
          // Unconfined, the compile cache lives in Toolpack's private folder, never the
          // shared temp folder a sandboxed pack (or another user) could plant entries in.
          ...(plan === undefined ? { values: buildCompileCacheEnvironment() } : {}),
        }),
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        ...(plan === undefined ? {} : { sandbox: plan }),
      });
    } catch (error) {
      resolve({ error: { message: error instanceof Error ? error.message : String(error) } });
      return;
    }
    const { child } = contained;
    let answer: ListAnswer | undefined;
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      contained.kill();
    }, LIST_TIMEOUT_MS);
    const abort = () => {
      answer = { aborted: true };
      contained.kill();
    };
    signal?.addEventListener('abort', abort, { once: true });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('message', (message) => {
      answer = message as ListAnswer;
    });
    child.on('error', (error) => {
      answer ??= { error: { message: error.message } };
    });
    child.on('close', (code, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve(
        answer ?? {
          error: {
            message: timedOut
              ? `it did not finish loading within ${LIST_TIMEOUT_MS / 1000} s`
              : `the loader exited with ${code ?? exitSignal}${stderr.trim() === '' ? '' : `: ${stderr.trim().split('\n').slice(-3).join(' ')}`}`,
          },
        },
      );
    });
  });
}
