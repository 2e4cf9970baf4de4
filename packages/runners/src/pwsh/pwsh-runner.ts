import { createHash } from 'node:crypto';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { PwshSession, ToolCallResult, ToolContent, ToolInvocation } from '@toolpack/core';
import { resolveHostScriptPath } from '../asset-paths.ts';
import { findOutputMismatch } from '../check-tool-result.ts';
import { createConcurrencyLimiter } from '../concurrency-limiter.ts';
import { findExecutable } from '../find-executable.ts';
import { createSandboxPlanner } from '../plan-call-sandbox.ts';
import {
  createErrorResult,
  formatTruncationMarker,
  isPlainObject,
  parseJson,
  truncateText,
} from '../results.ts';
import type { CallConfinement, KindRunner, RunnerCall } from '../runner-types.ts';
import { describeStopReason } from '../runner-types.ts';
import { findPwshRuntimePaths } from '../runtime-paths.ts';
import type { HostResultMessage, HostSession } from './host-protocol.ts';
import { startPwshHost, type PwshCallRequest, type PwshHost } from './pwsh-host.ts';
import { createProgressRecordMapper } from './progress-records.ts';
import { redactSecrets, resolveCredentials } from './resolve-credentials.ts';
import { resolveHostCacheHome } from './host-cache-home.ts';
import { findStartupProfile } from './startup-profile.ts';

type PwshInvocation = Extract<ToolInvocation, { runner: 'pwsh' }>;

export interface PwshRunnerOptions {
  projectRoot: string;
  maxOutputBytes: number;
  /** Script calls running at once; also the number of runspaces kept open in advance. */
  concurrency: number;
  /**
   * How long a host's runspace pool must go without calls before the runspaces a burst
   * opened beyond its floor (two) are closed. Default 5 000 ms.
   */
  idleReleaseMs?: number;
  /** What the shared host of unconfined tools gets; a confined tool's host gets its own. */
  sharedEnvironment: Readonly<Record<string, string>>;
  /** The pwsh executable; found on PATH when absent. */
  pwshPath?: string;
  /** How long a stopped pipeline may take to end before the host is killed and restarted. */
  stopGraceMs: number;
  startTimeoutMs: number;
  /**
   * Where server-bound credentials (`invocation.credentials`) read `{ env: NAME }` secrets: the
   * server's own environment, not the tool's. Default `process.env`.
   */
  secretEnvironment?: Readonly<Record<string, string | undefined>>;
  /** Where a failed startup-profile warm-up is told (`startup-profile.ts`); silent when absent. */
  onDebug?(message: string): void;
}

export interface PwshRunner extends KindRunner {
  /**
   * Starts the host of this confinement (the shared one when absent), opens the given
   * modules' runspaces and loads the given tool-folder sessions into a runspace each, if pwsh
   * is installed; never rejects.
   */
  warm(
    modulePaths?: readonly string[],
    confinement?: CallConfinement,
    sessions?: readonly PwshSession[],
  ): Promise<void>;
  /** Re-imports these modules (all when absent) on their next call, on every host. */
  reload(modulePaths?: readonly string[]): void;
  /** The shared host's process id while it runs. */
  readonly hostPid: number | undefined;
  /** Hosts alive now: the shared one and one per sandbox. */
  readonly hostCount: number;
  /** Hosts started after the first of their confinement (crashes, kills after a stuck timeout). */
  readonly restarts: number;
}

/** One PowerShell host per confinement: the shared one (key '') and one per sandbox (pack). */
interface HostSlot {
  host: PwshHost | undefined;
  started: number;
}

const MAX_COLLECTED_MESSAGES = 20;

export function formatMissingPwshMessage(toolName: string): string {
  return (
    `PowerShell 7 (pwsh) is not installed or not on PATH, so the PowerShell tool "${toolName}" cannot run. ` +
    'Install PowerShell 7 (https://aka.ms/install-powershell), for example with ' +
    '`dotnet tool install --global PowerShell`, `winget install Microsoft.PowerShell` (Windows) or ' +
    '`brew install powershell/tap/powershell` (macOS), or set pwshPath to the pwsh executable. ' +
    'Tools in other languages keep working.'
  );
}

/** A module given by path is resolved against the project; a bare name is looked up on PSModulePath by pwsh. */
export function resolveModuleReference(projectRoot: string, modulePath: string): string {
  const looksLikePath =
    isAbsolute(modulePath) || /[\\/]/u.test(modulePath) || /\.(psd1|psm1|dll)$/iu.test(modulePath);
  return looksLikePath ? resolve(projectRoot, modulePath) : modulePath;
}

export function createPwshRunner(options: PwshRunnerOptions): PwshRunner {
  const limiter = createConcurrencyLimiter(options.concurrency);
  const moduleQueues = new Map<string, Promise<void>>();
  const hostScriptPath = resolveHostScriptPath();
  const planner = createSandboxPlanner(options.projectRoot);
  const slots = new Map<string, HostSlot>();
  const shared: CallConfinement = { key: '', environment: options.sharedEnvironment };
  let closed = false;
  let foundPwsh: string | undefined;

  const findPwsh = (): string | undefined => {
    if (options.pwshPath !== undefined) return options.pwshPath;
    foundPwsh ??= findExecutable(process.platform === 'win32' ? 'pwsh.exe' : 'pwsh', {
      ...process.env,
      ...(options.sharedEnvironment.PATH === undefined
        ? {}
        : { PATH: options.sharedEnvironment.PATH }),
    });
    return foundPwsh;
  };

  const getHost = (pwshPath: string, confinement: CallConfinement): PwshHost => {
    const slot = slots.get(confinement.key) ?? { host: undefined, started: 0 };
    slots.set(confinement.key, slot);
    if (slot.host?.alive) return slot.host;
    slot.host = startPwshHost({
      pwshPath,
      hostScriptPath,
      projectRoot: options.projectRoot,
      poolSize: options.concurrency,
      ...(options.idleReleaseMs === undefined ? {} : { idleReleaseMs: options.idleReleaseMs }),
      maxOutputBytes: options.maxOutputBytes,
      environment: confinement.environment,
      startTimeoutMs: options.startTimeoutMs,
      // A confined host has the startup profile Toolpack's confined warm-up recorded (below).
      ...(confinement.sandbox === undefined ? withCacheHome(pwshPath) : {}),
      // Inside a sandbox: pwsh and its .NET runtime, the host script, the channel's folder,
      // and .NET's startup profile recorded by Toolpack's own confined warm-up.
      planSandbox: (socketFolder) => {
        if (confinement.sandbox === undefined) return undefined;
        const profile = findStartupProfile({
          pwshPath,
          hostScriptPath,
          environment: options.sharedEnvironment,
          startTimeoutMs: options.startTimeoutMs,
          ...(options.onDebug === undefined ? {} : { onDebug: options.onDebug }),
        });
        return planner.plan({
          confinement,
          runtimePaths: () => [
            ...findPwshRuntimePaths(pwshPath, confinement.environment),
            dirname(hostScriptPath),
          ],
          ...(socketFolder === undefined ? {} : { extraWrite: [socketFolder] }),
          ...(profile === undefined ? {} : { homeFiles: [profile] }),
        });
      },
    });
    slot.started += 1;
    return slot.host;
  };

  const runOnHost = async (
    call: RunnerCall,
    request: PwshCallRequest,
    pwshPath: string,
    secrets: readonly string[],
  ): Promise<ToolCallResult> => {
    const result = await runOnHostUnredacted(call, request, pwshPath, secrets);
    // An error a tool or PowerShell words with a credential's secret in it never leaves here.
    if (secrets.length === 0 || result.isError !== true) return result;
    return {
      ...result,
      content: result.content.map((item) =>
        item.type === 'text' ? { ...item, text: redactSecrets(item.text, secrets) } : item,
      ),
    };
  };

  const runOnHostUnredacted = async (
    call: RunnerCall,
    request: PwshCallRequest,
    pwshPath: string,
    secrets: readonly string[],
  ): Promise<ToolCallResult> => {
    if (closed)
      return createErrorResult(`Tool "${call.tool.name}" was not run: the runner is closed.`);
    const current = getHost(pwshPath, call.confinement);
    const started = await waitUntilReady(current, call.signal);
    if (started === 'aborted') return createStoppedResult(call);
    if (started instanceof Error) {
      return createErrorResult(
        `PowerShell tool "${call.tool.name}" cannot run: ${started.message} ` +
          'Check that pwshPath points at PowerShell 7.2 or later; the host is started again on the next call.',
      );
    }

    const errors: string[] = [];
    const warnings: string[] = [];
    const progressRecords = createProgressRecordMapper();
    const handle = current.startCall(request, {
      onProgress(record) {
        const progress = progressRecords.map(record);
        if (progress === undefined) return;
        if (secrets.length > 0 && progress.message !== undefined)
          progress.message = redactSecrets(progress.message, secrets);
        call.onProgress(progress);
      },
      onLog(level, raw) {
        const message = secrets.length === 0 ? raw : redactSecrets(raw, secrets);
        if (level === 'error' && errors.length < MAX_COLLECTED_MESSAGES) errors.push(message);
        if (level === 'warning' && warnings.length < MAX_COLLECTED_MESSAGES) warnings.push(message);
        call.onLog(level, message);
      },
      onAsk: (question) => call.ask(question),
    });

    let graceTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      const reason = describeStopReason(call.signal.reason);
      handle.stop();
      graceTimer = setTimeout(() => {
        current.kill(
          `was restarted because tool "${call.tool.name}" did not stop within ${options.stopGraceMs} ms after its ${reason}`,
        );
      }, options.stopGraceMs);
      graceTimer.unref();
    };
    call.signal.addEventListener('abort', onAbort, { once: true });
    if (call.signal.aborted) onAbort();
    const outcome = await handle.outcome;
    clearTimeout(graceTimer);
    call.signal.removeEventListener('abort', onAbort);

    if (outcome.type === 'lost') {
      return createErrorResult(
        `PowerShell tool "${call.tool.name}" did not finish: the PowerShell host ${stripThePowerShellHost(outcome.reason)} ` +
          'A new host starts with the next call; retry this one.',
      );
    }
    if (outcome.message.stopped) return createStoppedResult(call);
    return createResultFromHost({
      toolName: call.tool.name,
      message: outcome.message,
      errors,
      warnings,
      maxOutputBytes: options.maxOutputBytes,
      ...(call.tool.outputSchema === undefined
        ? {}
        : {
            fitsOutputSchema: (result: ToolCallResult) =>
              findOutputMismatch(call.tool, result) === undefined,
          }),
    });
  };

  return {
    async execute(call) {
      const invocation = call.tool.invocation as PwshInvocation;
      const pwshPath = findPwsh();
      if (pwshPath === undefined)
        return createErrorResult(formatMissingPwshMessage(call.tool.name));
      const request = buildRequest(options.projectRoot, call, invocation);
      let secrets: readonly string[] = [];
      const bound = invocation.mode === 'tool-folder' ? undefined : invocation.credentials;
      if (bound !== undefined && bound.length > 0) {
        const resolved = resolveCredentials({
          tool: call.tool,
          args: call.args,
          credentials: bound,
          environment: options.secretEnvironment ?? process.env,
        });
        if (!resolved.ok) return createErrorResult(resolved.message);
        request.credentials = resolved.credentials;
        secrets = resolved.secrets;
      }

      if (invocation.mode === 'module') {
        // One runspace per module (per host), one call at a time: queue here so a call that
        // times out while waiting never reaches the host.
        const key = `${call.confinement.key}\0${request.modulePath ?? ''}`;
        const previous = moduleQueues.get(key) ?? Promise.resolve();
        let endTurn!: () => void;
        const turn = new Promise<void>((resolveTurn) => (endTurn = resolveTurn));
        // The next call waits for `previous` and for this turn, even if this call gives up early.
        const tail = previous.then(() => turn);
        moduleQueues.set(key, tail);
        try {
          await Promise.race([previous, abortedPromise(call.signal)]);
          if (call.signal.aborted) return createStoppedResult(call);
          return await runOnHost(call, request, pwshPath, secrets);
        } finally {
          endTurn();
          if (moduleQueues.get(key) === tail) moduleQueues.delete(key);
        }
      }

      const release = await limiter.acquire(call.signal);
      if (release === undefined) return createStoppedResult(call);
      try {
        return await runOnHost(call, request, pwshPath, secrets);
      } finally {
        release();
      }
    },
    async warm(modulePaths = [], confinement = shared, sessions = []) {
      const pwshPath = findPwsh();
      if (pwshPath === undefined || closed) return;
      const current = getHost(pwshPath, confinement);
      try {
        await current.ready;
      } catch {
        return;
      }
      for (const modulePath of modulePaths) {
        current.warmModule(resolveModuleReference(options.projectRoot, modulePath));
      }
      const warmed = new Set<string>();
      for (const session of sessions) {
        const hostSession = toHostSession(options.projectRoot, session);
        if (warmed.has(hostSession.key)) continue;
        warmed.add(hostSession.key);
        current.warmSession(hostSession);
      }
    },
    reload(modulePaths) {
      const references = modulePaths?.map((path) =>
        resolveModuleReference(options.projectRoot, path),
      );
      for (const { host } of slots.values()) if (host?.alive) host.forgetModules(references);
    },
    get hostPid() {
      const host = slots.get('')?.host;
      return host?.alive ? host.pid : undefined;
    },
    get hostCount() {
      return [...slots.values()].filter(({ host }) => host?.alive === true).length;
    },
    get restarts() {
      return [...slots.values()].reduce((sum, slot) => sum + Math.max(0, slot.started - 1), 0);
    },
    async close() {
      closed = true;
      await Promise.all([...slots.values()].map(({ host }) => host?.close()));
    },
  };
}

function withCacheHome(pwshPath: string): { cacheHome?: string } {
  const cacheHome = resolveHostCacheHome(pwshPath);
  return cacheHome === undefined ? {} : { cacheHome };
}

function buildRequest(
  projectRoot: string,
  call: RunnerCall,
  invocation: PwshInvocation,
): PwshCallRequest {
  const base = { toolName: call.tool.name, arguments: call.args };
  switch (invocation.mode) {
    case 'tool-folder':
      return {
        ...base,
        mode: 'tool-folder',
        scriptPath: resolve(projectRoot, invocation.scriptPath),
        functionName: invocation.functionName,
        modulePath: null,
        ...(invocation.session === undefined
          ? {}
          : { session: toHostSession(projectRoot, invocation.session) }),
      };
    case 'script':
      return {
        ...base,
        mode: 'script',
        scriptPath: resolve(projectRoot, invocation.scriptPath),
        functionName: null,
        modulePath: null,
      };
    case 'module':
      return {
        ...base,
        mode: 'module',
        scriptPath: null,
        functionName: invocation.functionName,
        modulePath: resolveModuleReference(projectRoot, invocation.modulePath),
      };
  }
}

function toHostSession(projectRoot: string, session: PwshSession): HostSession {
  const body = {
    origin: session.origin,
    imports: session.imports.map((file) => resolve(projectRoot, file)),
    setup: session.setup ?? null,
    variables: session.variables ?? {},
    environment: session.environment ?? {},
    jsonWriter: session.jsonWriter ?? null,
  };
  return { key: createHash('sha256').update(JSON.stringify(body)).digest('hex'), ...body };
}

function waitUntilReady(host: PwshHost, signal: AbortSignal): Promise<'ready' | 'aborted' | Error> {
  return Promise.race([
    host.ready.then(
      () => 'ready' as const,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    ),
    abortedPromise(signal).then(() => 'aborted' as const),
  ]);
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolveAbort) =>
    signal.addEventListener('abort', () => resolveAbort(), { once: true }),
  );
}

function createStoppedResult(call: RunnerCall): ToolCallResult {
  return createErrorResult(
    `Tool "${call.tool.name}" was stopped (${describeStopReason(call.signal.reason)}).`,
  );
}

function stripThePowerShellHost(reason: string): string {
  const text = reason.replace(/^the PowerShell host /u, '');
  return /[.!?]$/u.test(text.trim()) ? text : `${text}.`;
}

export interface CreateResultFromHostInput {
  toolName: string;
  message: HostResultMessage;
  /** Error-stream records (Write-Error) the tool wrote, as forwarded log lines. */
  errors: readonly string[];
  warnings: readonly string[];
  maxOutputBytes: number;
  /**
   * Whether output fits the tool's output schema (absent: no schema). With errors written and
   * output that does not fit, the run failed and the errors lead the result.
   */
  fitsOutputSchema?: (result: ToolCallResult) => boolean;
}

/**
 * The host's answer as a result. The Write-Error rule: records on the error stream make the
 * result an error only when the tool returned nothing; with output, the output is the
 * result and the errors are added as a separate text block (so JSON text stays parseable).
 */
export function createResultFromHost(input: CreateResultFromHostInput): ToolCallResult {
  const { message, toolName, maxOutputBytes } = input;
  const errorCount = Math.max(message.errorCount, input.errors.length);
  const extra: ToolContent[] = [];
  const listed = (items: readonly string[], total: number): string => {
    const lines = items.map((item) => `- ${item}`);
    if (total > items.length) lines.push(`- ... and ${total - items.length} more`);
    return lines.join('\n');
  };
  if (input.warnings.length > 0)
    extra.push({
      type: 'text',
      text: `Warnings:\n${listed(input.warnings, input.warnings.length)}`,
    });

  if (message.kind === 'error') {
    const where =
      message.file === null
        ? ''
        : ` (at ${message.file}${message.line > 0 ? `:${message.line}` : ''})`;
    const errorBlock =
      errorCount > 0
        ? [
            {
              type: 'text' as const,
              text: `Errors written before it failed:\n${listed(input.errors, errorCount)}`,
            },
          ]
        : [];
    return createErrorResult(
      `PowerShell tool "${toolName}" failed: ${message.error ?? 'unknown error'}${where}`,
      [...errorBlock, ...extra],
    );
  }

  let content: ToolContent[] = [];
  let structuredContent: Record<string, unknown> | undefined;
  if (message.kind === 'text' && message.text !== null) {
    const { text, truncated } = truncateText(message.text, maxOutputBytes);
    const marked =
      message.truncated && !truncated ? `${text}\n${formatTruncationMarker(maxOutputBytes)}` : text;
    if (marked !== '') content = [{ type: 'text', text: marked }];
  } else if (message.kind === 'json' && message.json !== null) {
    const { text, truncated } = truncateText(message.json, maxOutputBytes);
    if (message.truncated || truncated) {
      content = [
        {
          type: 'text',
          text: truncated ? text : `${text}\n${formatTruncationMarker(maxOutputBytes)}`,
        },
      ];
    } else {
      content = [{ type: 'text', text }];
      const parsed = parseJson(text);
      if (isPlainObject(parsed)) structuredContent = parsed;
    }
  }

  if (errorCount > 0 && content.length === 0) {
    return createErrorResult(
      `PowerShell tool "${toolName}" wrote ${errorCount === 1 ? 'an error' : `${errorCount} errors`} and returned nothing:\n` +
        listed(input.errors, errorCount),
      extra,
    );
  }
  const result: ToolCallResult = { content };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  if (errorCount > 0 && input.fitsOutputSchema?.(result) === false) {
    // What it returned is not the promised result: the errors are why, so they lead.
    return createErrorResult(
      `PowerShell tool "${toolName}" wrote ${errorCount === 1 ? 'an error' : `${errorCount} errors`} and returned no result that fits its output schema:\n` +
        listed(input.errors, errorCount),
      [...content, ...extra],
    );
  }
  if (errorCount > 0) {
    extra.unshift({
      type: 'text',
      text: `Errors (written with Write-Error; the tool still returned output):\n${listed(input.errors, errorCount)}`,
    });
  }
  result.content = [...content, ...extra];
  return result;
}
