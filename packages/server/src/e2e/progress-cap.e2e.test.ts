import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStdioSession, type StdioSession } from '../testing/index.ts';

// A tool whose progress restarts its 1 s timeout, reporting five times a second for 20 s:
// toolpack.yaml caps such calls at 2 s in all.
describe('progressTimeoutCap: in toolpack.yaml over mcp serve', () => {
  let project: string;
  let session: StdioSession;

  beforeAll(async () => {
    project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-progress-cap-'));
    writeFileSync(
      path.join(project, 'toolpack.yaml'),
      ['sources:', '  - scripts: .', 'progressTimeoutCap: 2s', ''].join('\n'),
    );
    writeFileSync(
      path.join(project, 'keep_busy.sh'),
      [
        '# DESCRIPTION "Works for 20 seconds, reporting progress."',
        '# OPTIONS progress-resets-timeout',
        '# TIMEOUT 1s',
        'for i in $(seq 1 100); do echo "::progress $i/100" >&2; sleep 0.2; done',
        'echo done',
        '',
      ].join('\n'),
    );
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
  });

  afterAll(async () => {
    await session?.close();
    rmSync(project, { recursive: true, force: true });
  });

  it('stops a call that keeps reporting once it has run for the cap', async () => {
    const reports: number[] = [];
    const started = performance.now();
    const result = await session.client.callTool(
      { name: 'keep_busy', arguments: {} },
      { onprogress: (progress) => reports.push(progress.progress) },
    );
    const ms = performance.now() - started;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      'ran for 2000 ms, the most any call whose progress restarts its timeout may run',
    );
    expect(ms).toBeGreaterThanOrEqual(1_900);
    expect(ms).toBeLessThan(5_000);
    // Its 1 s timeout never fired: the reports kept restarting it until the cap.
    expect(reports.length).toBeGreaterThan(5);
  });
});
