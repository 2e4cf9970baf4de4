import { createToolRunner, type ToolRunner } from '@toolpack/runners';
import { createAuditLog, type AuditLog } from './audit/audit-log.ts';
import { createIdleCollector, type IdleCollector } from './memory/idle-collector.ts';
import {
  createDisabledMetrics,
  createServerMetrics,
  type ServerMetrics,
} from './metrics/server-metrics.ts';
import type { ToolpackServerOptions } from './toolpack-server.ts';

/** What a server holds for every connection and gives back when it closes. */
export interface ServerResources {
  runner: ToolRunner;
  metrics: ServerMetrics;
  audit: AuditLog | undefined;
  idleCollector: IdleCollector | undefined;
  /** Closes the runner only when the server made it: a runner passed in is its owner's. */
  close(): Promise<void>;
}

export async function openServerResources(
  options: ToolpackServerOptions,
  log: (line: string) => void,
): Promise<ServerResources> {
  const settings = options.runner;
  const runner =
    settings !== undefined && 'call' in settings
      ? settings
      : createToolRunner({
          ...settings,
          projectRoot: settings?.projectRoot ?? options.discovery.cwd,
        });
  const metrics = options.metrics === false ? createDisabledMetrics() : await createServerMetrics();
  const audit =
    options.audit === undefined
      ? undefined
      : createAuditLog(options.audit, (error) =>
          log(`audit log ${options.audit} cannot be written: ${error.message}`),
        );
  const idleCollector =
    options.collectWhenIdle === undefined || options.collectWhenIdle === false
      ? undefined
      : createIdleCollector(options.collectWhenIdle === true ? {} : options.collectWhenIdle);
  return {
    runner,
    metrics,
    audit,
    idleCollector,
    async close() {
      idleCollector?.close();
      if (runner !== settings) await runner.close();
      await audit?.close();
    },
  };
}
