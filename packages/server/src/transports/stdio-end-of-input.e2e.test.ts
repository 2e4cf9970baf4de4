import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, listDescendants, spawnServe, waitFor } from '../testing/index.ts';
import { END_OF_INPUT_GRACE_MS } from './stdio.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

describe('mcp serve over stdio at the end of input', () => {
  let temp: string;
  let marker: string;

  beforeAll(() => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-stdio-eof-'));
    marker = path.join(temp, 'called.txt');
    // The tool leaves a mark, so the test knows the call really ran before the input ended.
    writeFileSync(
      path.join(temp, 'leave-mark.mjs'),
      [
        '// DESCRIPTION "Writes a mark file and answers."',
        '// PARAM word AS string DESCRIPTION "What to write."',
        "import { writeFileSync } from 'node:fs';",
        "let input = '';",
        'for await (const chunk of process.stdin) input += chunk;',
        'const { word } = JSON.parse(input);',
        `writeFileSync(${JSON.stringify(marker)}, word);`,
        'console.log(JSON.stringify({ wrote: word }));',
        '',
      ].join('\n'),
    );
  });

  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('answers a tools/call piped right before stdin ends, then exits', async () => {
    const server = spawnServe(['--script-root', temp, '--no-cache', '--no-watch'], { cwd: temp });
    try {
      // What `printf 'initialize\ninitialized\ntools/call\n' | mcp serve` sends: all at once, then EOF.
      server.child.stdin?.end(
        [
          INITIALIZE,
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          {
            jsonrpc: '2.0',
            id: 'call',
            method: 'tools/call',
            params: { name: 'leave_mark', arguments: { word: 'piped' } },
          },
        ]
          .map((message) => JSON.stringify(message))
          .join('\n') + '\n',
      );
      expect(await server.exited).toBe(0);
      const answers = server
        .stdout()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map(
          (line) => JSON.parse(line) as { id?: unknown; result?: { structuredContent?: unknown } },
        );
      expect(answers.map((answer) => answer.id)).toEqual([0, 'call']);
      expect(answers[1]?.result?.structuredContent).toEqual({ wrote: 'piped' });
      expect(existsSync(marker) ? readFileSync(marker, 'utf8') : 'the tool never ran').toBe(
        'piped',
      );
      expect(server.stderr()).toContain('stopping (end of stdin)');
    } finally {
      server.kill();
    }
  });
});

// The bound docs/serving-clients.md states for an abandoned server (7 s): the grace for
// requests read before the end, the stop of the calls still running (a pwsh pipeline stop, a
// process group killed), and Toolpack's own shutdown. Measured: about 3.2 s.
const EXIT_BOUND_MS = END_OF_INPUT_GRACE_MS + 4_000;

describe.skipIf(process.platform !== 'linux')(
  'mcp serve over stdio: calls still running when stdin ends',
  () => {
    let project: string;

    beforeAll(() => {
      project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-stdio-abandoned-'));
      // Progress every half second resets a timeout far beyond the test: before the end-of-input
      // rule, nothing but the tool itself ended such a call (the server waited for it).
      writeFileSync(
        path.join(project, 'keep-busy.sh'),
        [
          '# DESCRIPTION "Works for two minutes, reporting progress."',
          '# OPTIONS progress-resets-timeout',
          '# TIMEOUT 10m',
          'for i in $(seq 1 240); do echo "::progress $i/240" >&2; sleep 0.5; done',
          'echo done',
          '',
        ].join('\n'),
      );
      writeFileSync(
        path.join(project, 'Wait-Long.ps1'),
        [
          '<#',
          '.SYNOPSIS',
          '    Waits two minutes.',
          '#>',
          'param()',
          'Start-Sleep -Seconds 120',
          "'done'",
          '',
        ].join('\n'),
      );
    });

    afterAll(() => rmSync(project, { recursive: true, force: true }));

    const runAbandoned = async (tool: string) => {
      const server = spawnServe(['--script-root', '.', '--no-cache', '--no-watch'], {
        cwd: project,
      });
      try {
        server.child.stdin?.write(
          [
            INITIALIZE,
            { jsonrpc: '2.0', method: 'notifications/initialized' },
            {
              jsonrpc: '2.0',
              id: 'long',
              method: 'tools/call',
              params: { name: tool, arguments: {}, _meta: { progressToken: 1 } },
            },
          ]
            .map((message) => JSON.stringify(message))
            .join('\n') + '\n',
        );
        const pid = server.child.pid as number;
        // The tool is running once the server has a child doing its work.
        const running = await waitFor(
          () => {
            const found = listDescendants(pid);
            return found.some((child) => /sleep|pwsh/.test(readCommand(child))) && found;
          },
          `the ${tool} call running`,
          30_000,
        );
        const commands = new Map(running.map((child) => [child, readCommand(child)]));
        const endedAt = performance.now();
        server.child.stdin?.end();
        const code = await server.exited;
        const exitMs = performance.now() - endedAt;
        const left = running.filter(isRunning).map((child) => `${child} ${commands.get(child)}`);
        return { code, exitMs, running, left, stdout: server.stdout(), stderr: server.stderr() };
      } finally {
        server.kill();
      }
    };

    it('cancels a bash call whose progress keeps extending its timeout, and exits within the bound', async () => {
      const { code, exitMs, left, stdout, stderr } = await runAbandoned('keep_busy');
      expect(code, stderr).toBe(0);
      expect(exitMs).toBeGreaterThanOrEqual(END_OF_INPUT_GRACE_MS - 100);
      expect(exitMs).toBeLessThan(EXIT_BOUND_MS);
      expect(left).toEqual([]);
      // The abandoned call is not answered (the client is gone); the initialize was.
      expect(stdout).not.toContain('"id":"long"');
      console.log(`keep_busy: exited ${Math.round(exitMs)} ms after the end of stdin`);
    }, 60_000);

    it.skipIf(!hasPwsh)(
      `${PWSH_TEST_TAG} cancels a PowerShell Start-Sleep and ends its host, within the bound`,
      async () => {
        const { code, exitMs, left, stderr } = await runAbandoned('Wait_Long');
        expect(code, stderr).toBe(0);
        expect(exitMs).toBeLessThan(EXIT_BOUND_MS);
        expect(left).toEqual([]);
        console.log(`Wait_Long: exited ${Math.round(exitMs)} ms after the end of stdin`);
      },
      90_000,
    );
  },
);

/** Alive and not a zombie: an ended child of a container's pid 1 may stay unreaped. */
function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
