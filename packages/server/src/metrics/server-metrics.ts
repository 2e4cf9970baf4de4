import type { Registry } from 'prom-client';
import type { CallOutcome } from '../audit/audit-log.ts';

export interface ServerMetrics {
  /**
   * Its own registry, never prom-client's global one: two servers in a process stay apart.
   * Undefined when metrics are disabled.
   */
  readonly registry: Registry | undefined;
  setToolCount(count: number): void;
  /** `tool` must be a served (or denied) tool's name; unknown names are counted without a label. */
  recordCall(tool: string, outcome: CallOutcome, seconds: number): void;
  recordReload(outcome: 'ok' | 'kept'): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface CreateServerMetricsOptions {
  /** Also export Node's process metrics (memory, CPU, event loop). Default true. */
  processMetrics?: boolean;
}

/**
 * Prometheus metrics on a registry of their own. prom-client is loaded here, on first use,
 * so a stdio server that never exposes `/metrics` does not carry it.
 */
export async function createServerMetrics(
  options: CreateServerMetricsOptions = {},
): Promise<ServerMetrics> {
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } =
    await import('prom-client');
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const tools = new Gauge({
    name: 'toolpack_tools',
    help: 'Tools the server offers (after policy).',
    registers: [registry],
  });
  const calls = new Counter({
    name: 'toolpack_tool_calls_total',
    help: 'tools/call requests per tool and outcome (ok, error, denied, cancelled).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'toolpack_tool_errors_total',
    help: 'tools/call requests per tool that ended in an error result (failures, timeouts, bad arguments, denials).',
    labelNames: ['tool'] as const,
    registers: [registry],
  });
  const unknown = new Counter({
    name: 'toolpack_unknown_tool_calls_total',
    help: 'tools/call requests naming no tool (answered with JSON-RPC -32602).',
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'toolpack_tool_call_duration_seconds',
    help: 'Time from receiving a tools/call to answering it, per tool.',
    labelNames: ['tool'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const reloads = new Counter({
    name: 'toolpack_reloads_total',
    help: 'Hot reloads: ok (the tool list was re-read) or kept (the previous list stayed because the new one was refused).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return {
    registry,
    contentType: registry.contentType,
    setToolCount: (count) => tools.set(count),
    recordCall(tool, outcome, seconds) {
      if (outcome === 'unknown_tool') {
        // Names clients invent would each become a time series: count them unlabelled.
        unknown.inc();
        return;
      }
      calls.inc({ tool, outcome });
      if (outcome === 'error' || outcome === 'denied') errors.inc({ tool });
      latency.observe({ tool }, seconds);
    },
    recordReload: (outcome) => reloads.inc({ outcome }),
    render: () => registry.metrics(),
  };
}

/** Metrics that record nothing, for servers that do not expose them. */
export function createDisabledMetrics(): ServerMetrics {
  return {
    registry: undefined,
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    setToolCount: () => undefined,
    recordCall: () => undefined,
    recordReload: () => undefined,
    render: async () => '# metrics are disabled on this server\n',
  };
}
