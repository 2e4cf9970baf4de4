import { describe, expect, it } from 'vitest';
import { createDisabledMetrics, createServerMetrics } from './server-metrics.ts';

describe('server metrics', () => {
  it('counts calls and errors per tool, observes latency, and keeps unknown names unlabelled', async () => {
    const metrics = await createServerMetrics({ processMetrics: false });
    metrics.setToolCount(3);
    metrics.recordCall('add', 'ok', 0.002);
    metrics.recordCall('add', 'error', 0.3);
    metrics.recordCall('del', 'denied', 0);
    metrics.recordCall('made-up-name', 'unknown_tool', 0);
    metrics.recordReload('ok');
    const text = await metrics.render();
    expect(text).toMatch(/^toolpack_tools 3$/m);
    expect(text).toMatch(/^toolpack_tool_calls_total\{tool="add",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^toolpack_tool_errors_total\{tool="add"\} 1$/m);
    expect(text).toMatch(/^toolpack_tool_errors_total\{tool="del"\} 1$/m);
    expect(text).toMatch(
      /^toolpack_tool_call_duration_seconds_bucket\{le="0.005",tool="add"\} 1$/m,
    );
    expect(text).toMatch(/^toolpack_unknown_tool_calls_total 1$/m);
    expect(text).not.toContain('made-up-name');
    expect(text).toMatch(/^toolpack_reloads_total\{outcome="ok"\} 1$/m);
    expect(metrics.contentType).toMatch(/^text\/plain/);
  });

  it('gives every server its own registry', async () => {
    const a = await createServerMetrics({ processMetrics: false });
    const b = await createServerMetrics({ processMetrics: false });
    a.recordCall('x', 'ok', 0.001);
    expect(await b.render()).not.toMatch(/tool="x"/);
  });

  it('records nothing when disabled', async () => {
    const metrics = createDisabledMetrics();
    metrics.recordCall('x', 'ok', 1);
    expect(metrics.registry).toBeUndefined();
    expect(await metrics.render()).toMatch(/disabled/);
  });

  it('exports process metrics by default', async () => {
    expect(await (await createServerMetrics()).render()).toMatch(
      /^process_resident_memory_bytes /m,
    );
  });
});
