import { performance } from 'node:perf_hooks';
import { isToolpackError, type ToolCallResult, type ToolpackError } from '@toolpack/core';
import { summarizeArgumentKeys, type AuditLog, type CallOutcome } from '../audit/audit-log.ts';
import type { IdleCollector } from '../memory/idle-collector.ts';
import type { ServerMetrics } from '../metrics/server-metrics.ts';
import type { ServedTools } from '../served-tools.ts';
import { toCallResult } from './call-results.ts';
import type { DispatchCallOptions } from './dispatch-types.ts';
import { createUnknownToolError } from './unknown-tool.ts';

export interface CallPipelineOptions {
  /** The tools served right now; each call keeps the set it started with across a reload. */
  served(): ServedTools;
  metrics: ServerMetrics;
  audit: AuditLog | undefined;
  idleCollector: IdleCollector | undefined;
  maxArgumentKeys: number;
}

/** A call's answer, or the name was no served tool's: the caller says so its own way. */
export type ToolAnswer = { result: ToolCallResult } | { unknownTool: ToolpackError };

export type CallPipeline = (
  name: string,
  args: unknown,
  options?: DispatchCallOptions,
) => Promise<ToolAnswer>;

/** Whether `args` is an object with more than `limit` own keys; stops counting past it. */
function hasMoreKeysThan(args: unknown, limit: number): boolean {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  let count = 0;
  for (const key in args) {
    if (Object.hasOwn(args, key) && ++count > limit) return true;
  }
  return false;
}

/**
 * What every call of a served tool goes through, whichever connection it came from: the
 * policy, the argument-key limit, the dispatcher, then one metric and one audit line.
 */
export function createCallPipeline(options: CallPipelineOptions): CallPipeline {
  const { metrics, audit, idleCollector, maxArgumentKeys } = options;
  return async (name, args, callOptions = {}) => {
    const started = performance.now();
    const served = options.served();
    idleCollector?.callStarted();
    const finish = (outcome: CallOutcome) => {
      idleCollector?.callEnded();
      const ms = performance.now() - started;
      metrics.recordCall(name, outcome, ms / 1000);
      audit?.record({
        time: new Date().toISOString(),
        tool: name.slice(0, 200),
        ...summarizeArgumentKeys(args),
        outcome,
        ms: Math.round(ms),
      });
    };
    const tool = served.allByName.get(name);
    if (tool === undefined) {
      finish('unknown_tool');
      // Suggestions come from the allowed tools only: a denied tool is never named.
      return { unknownTool: createUnknownToolError(served.allowed, name) };
    }
    const verdict = served.verdicts.get(name);
    if (verdict !== undefined && !verdict.allowed) {
      finish('denied');
      return {
        result: toCallResult(
          `${verdict.reason} It cannot be called on this server; use another tool, or ask whoever runs the server to change the policy.`,
          true,
        ),
      };
    }
    // Checked before validation: its cost (and the answer's size) grows with the keys, and
    // that cost is the server's, not the client's.
    if (hasMoreKeysThan(args, maxArgumentKeys)) {
      finish('error');
      return {
        result: toCallResult(
          `Invalid arguments for tool "${name}": more than ${maxArgumentKeys} argument keys; send the tool's own parameters (tools/list shows them) and put collections in a value.`,
          true,
        ),
      };
    }
    try {
      const result = await served.dispatcher.run(tool, args, callOptions);
      finish(callOptions.signal?.aborted ? 'cancelled' : result.isError ? 'error' : 'ok');
      return { result };
    } catch (error) {
      finish('error');
      const message = isToolpackError(error)
        ? error.message
        : String((error as Error)?.message ?? error);
      return { result: toCallResult(`Tool ${name} failed: ${message}`, true) };
    }
  };
}
