import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { describeContainment } from '@toolpack/containment';
import { ToolpackError } from '@toolpack/core';
import { FileParseCache } from '../../cache/file-parse-cache.ts';
import { discoverTools } from '../../discover-tools.ts';
import { discoverJsModule } from './discover-js-module.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const hasProc = existsSync('/proc/self/environ');

/** Pids (as this process sees them) whose environment contains `marker`. */
function listProcessesWithEnviron(marker: string): number[] {
  if (!hasProc) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker))
        found.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

describe('discoverJsModule', () => {
  it('refuses a listed schema the linear-time engine cannot run, and reads an export name as text', async () => {
    // The module forges defineTool's brand, so only the parent's own check stands between its
    // schema and the server; its other export is named `((a|a)*)*c`, which as a pattern would
    // backtrack over the module's run of 35 letters for minutes.
    const result = await discoverJsModule({ module: 'forged-schemas.mjs', cwd: fixtures });
    expect(result.tools.map((tool) => tool.name)).toEqual(['oddly_named']);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'E_INPUT_SCHEMA',
        line: 3,
        message:
          'Tool forged: the input schema is not valid JSON Schema: /properties/id/pattern the pattern "^(a)\\\\1$" uses a back-reference (\\1), which the linear-time engine (RE2) cannot run.',
      }),
    ]);
  });

  it('checks each listed schema once per content with a cache, and refuses it again on a hit', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolpack-schema-check-'));
    try {
      const cache = new FileParseCache({ dir });
      const read = vi.spyOn(cache, 'read');
      const first = await discoverJsModule({ module: 'forged-schemas.mjs', cwd: fixtures, cache });
      // One check per listed tool, kept under the schemas' hash with no file behind it.
      const checks = read.mock.calls.filter(([kind]) => kind.startsWith('js-module-schema-check@'));
      expect(checks.map(([, files]) => files)).toEqual([[], []]);
      expect(cache.stats).toEqual({ hits: 0, misses: 2 });
      const second = await discoverJsModule({ module: 'forged-schemas.mjs', cwd: fixtures, cache });
      expect(cache.stats).toEqual({ hits: 2, misses: 2 });
      // The remembered answer refuses the forged schema as the check did.
      expect(second).toEqual(first);
      expect(second.diagnostics.map((d) => d.code)).toEqual(['E_INPUT_SCHEMA']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds every exported defineTool value, with full schemas, in a child process', async () => {
    const result = await discoverJsModule({ module: 'good-tools.ts', cwd: fixtures });
    expect(result.diagnostics).toEqual([]);
    expect(result.tools).toEqual([
      {
        name: 'greet',
        title: 'Greet someone',
        description: 'Greets someone by name.',
        inputSchema: {
          type: 'object',
          properties: { name: { type: 'string', description: 'Who to greet.' } },
          required: ['name'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true },
        timeoutMs: 5000,
        inputExamples: [{ arguments: { name: 'Ada' }, description: 'Greets Ada' }],
        longRunning: true,
        progressResetsTimeout: true,
        source: { kind: 'js-module', path: path.join(fixtures, 'good-tools.ts'), line: 4 },
        invocation: {
          runner: 'node-worker',
          modulePath: path.join(fixtures, 'good-tools.ts'),
          exportName: 'greet',
        },
        originalName: 'greet',
      },
      {
        name: 'shout',
        description: 'Upper-cases a text.',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
        source: { kind: 'js-module', path: path.join(fixtures, 'good-tools.ts'), line: 18 },
        invocation: {
          runner: 'node-worker',
          modulePath: path.join(fixtures, 'good-tools.ts'),
          exportName: 'shout',
        },
        originalName: 'shout',
      },
    ]);
    expect((globalThis as Record<string, unknown>).__toolpackFixtureLoaded).toBeUndefined();
  });

  it('turns an import failure into an error diagnostic', async () => {
    const result = await discoverJsModule({ module: 'throws-on-import.mjs', cwd: fixtures });
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toMatchObject([
      {
        severity: 'error',
        code: 'E_MODULE_LOAD',
        message: 'Importing throws-on-import.mjs failed: database is not reachable',
      },
    ]);
  });

  it('warns about a module without tools, naming what it exports', async () => {
    const result = await discoverJsModule({ module: 'no-tools.mjs', cwd: fixtures });
    expect(result.diagnostics).toMatchObject([
      {
        severity: 'warning',
        code: 'W_NO_TOOLS',
        message: 'no-tools.mjs exports no defineTool(...) values (it exports default, helper).',
      },
    ]);
  });

  it('refuses two exports with the same tool name', async () => {
    const result = await discoverJsModule({ module: 'duplicate-names.mjs', cwd: fixtures });
    expect(result.tools.map((t) => (t.invocation as { exportName: string }).exportName)).toEqual([
      'first',
    ]);
    expect(result.diagnostics).toMatchObject([
      { severity: 'error', code: 'E_DUPLICATE_TOOL', line: 4 },
    ]);
  });

  it('finishes even when the module keeps its event loop busy', async () => {
    const result = await discoverJsModule({ module: 'keeps-running.mjs', cwd: fixtures });
    expect(result.tools.map((t) => t.name)).toEqual(['tick']);
  });

  it('throws E_SOURCE_MISSING for a module that does not exist', async () => {
    await expect(discoverJsModule({ module: 'nope.ts', cwd: fixtures })).rejects.toThrow(
      ToolpackError,
    );
    await expect(discoverJsModule({ module: 'nope.ts', cwd: fixtures })).rejects.toMatchObject({
      code: 'E_SOURCE_MISSING',
    });
  });

  it('stops importing a slow module when its signal aborts, and kills the importing child', async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'toolpack-js-abort-'));
    const pidFile = path.join(scratch, 'pid');
    // The importing child inherits the allow-listed part of this process's environment.
    vi.stubEnv('TOOLPACK_FIXTURE_PID_FILE', pidFile);
    try {
      const controller = new AbortController();
      const listing = discoverJsModule({
        module: 'loads-slowly.mjs',
        cwd: fixtures,
        signal: controller.signal,
        envAllowList: ['TOOLPACK_FIXTURE_PID_FILE'],
      });
      await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 10_000 });
      expect(listProcessesWithEnviron(pidFile).length).toBeGreaterThan(0);
      controller.abort(new Error('the registry is closing'));
      const error = await listing.catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'E_DISCOVERY_ABORTED' });
      expect((error as ToolpackError).cause).toEqual(new Error('the registry is closing'));
      // The promise settles once the child has exited, not merely been signalled (the pid it
      // wrote is its namespace's own, so it is found by its environment instead).
      expect(listProcessesWithEnviron(pidFile)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it.skipIf(!hasProc)(
    'imports with the allow-listed environment only, and what the module starts dies with the listing [needs /proc]',
    async () => {
      const scratch = mkdtempSync(path.join(tmpdir(), 'toolpack-js-contain-'));
      const marker = `secret-${process.pid}-${Date.now()}`;
      vi.stubEnv('TOOLPACK_TOKEN', marker);
      vi.stubEnv('TOOLPACK_FIXTURE_OUT', scratch);
      try {
        const result = await discoverJsModule({
          module: 'leaves-a-grandchild.mjs',
          cwd: fixtures,
          envAllowList: ['TOOLPACK_*'],
        });
        expect(result.tools.map((tool) => tool.name)).toEqual(['stays']);
        // The module's top level ran: it wrote its environment and started a detached grandchild.
        const seen = JSON.parse(readFileSync(path.join(scratch, 'env.json'), 'utf8')) as Record<
          string,
          string
        >;
        expect(seen.TOOLPACK_FIXTURE_OUT).toBe(scratch);
        expect(seen.TOOLPACK_TOKEN).toBeUndefined();
        expect(JSON.stringify(seen)).not.toContain(marker);
        expect(existsSync(path.join(scratch, 'grandchild.pid'))).toBe(true);
        // A process-group fallback cannot hold a grandchild that left with setsid (README).
        if (describeContainment().mode !== 'namespace') return;
        const leftovers = () => listProcessesWithEnviron(`TOOLPACK_FIXTURE_OUT=${scratch}`);
        await vi.waitFor(() => expect(leftovers()).toEqual([]), { timeout: 5_000 });
      } finally {
        vi.unstubAllEnvs();
        // Without namespaces the setsid grandchild is still ours to end.
        for (const pid of listProcessesWithEnviron(`TOOLPACK_FIXTURE_OUT=${scratch}`))
          process.kill(pid, 'SIGKILL');
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );

  it('starts no import when the signal already aborted, through discoverTools too', async () => {
    const signal = AbortSignal.abort();
    await expect(
      discoverJsModule({ module: 'good-tools.ts', cwd: fixtures, signal }),
    ).rejects.toMatchObject({ code: 'E_DISCOVERY_ABORTED' });
    const started = Date.now();
    await expect(
      discoverTools({
        sources: [{ module: 'loads-slowly.mjs' }],
        cwd: fixtures,
        cache: false,
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toMatchObject({ code: 'E_DISCOVERY_ABORTED' });
    // Without the signal reaching the import, only the loader's own 15 s limit would end it.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
