// Issue 30, attack 6: a pattern from a tool's schema ran in V8's backtracking engine on the
// server's only thread. An output schema `{"pattern": "^(a|a)*$"}` and a result of 34 `a`s and
// a `b` held it for over a minute, for every client; the same pattern in an input schema did
// it with one argument from a client. Both attacks run against the built `mcp serve` over
// stdio, with pings sent behind the call; the backtracking engine's cost on the same pattern
// is measured beside them (on fewer letters: each one more doubles it).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtMcpBin, createBuiltMcpEnv, findBuiltMcpProblem } from './sandbox/built-mcp.ts';
import { fixtures, INITIALIZE_PARAMS } from './system-helpers.ts';

/** The bound: every ping answered within this while the call is decided. */
const BOUND_MS = 100;
/** The tools' own timeout (`timeout: 10` in their metadata.yaml). */
const CALL_TIMEOUT_MS = 10_000;
const PATTERN = '^(a|a)*$';
const ATTACK = `${'a'.repeat(34)}b`;

let project: string;
beforeAll(() => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-redos-'));
  cpSync(path.join(fixtures, 'redos'), project, { recursive: true });
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

interface Answer {
  at: number;
  message: { id?: number; result?: Record<string, unknown>; error?: { message: string } };
}

interface Server {
  child: ChildProcessWithoutNullStreams;
  send(id: number, method: string, params?: unknown): number;
  answer(id: number): Promise<Answer>;
}

function startServer(): Server {
  const child = spawn(process.execPath, [builtMcpBin, 'serve', '--no-watch', '--no-cache'], {
    cwd: project,
    env: createBuiltMcpEnv({}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  const answers = new Map<number, Answer>();
  const waiters = new Map<number, () => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const at = performance.now();
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, newline)) as Answer['message'];
      buffer = buffer.slice(newline + 1);
      if (typeof message.id !== 'number') continue;
      answers.set(message.id, { at, message });
      waiters.get(message.id)?.();
    }
  });
  return {
    child,
    send(id, method, params) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return performance.now();
    },
    async answer(id) {
      for (;;) {
        const answer = answers.get(id);
        if (answer !== undefined) return answer;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`mcp serve was stopped before answering request ${id}`);
        await new Promise<void>((resolve) => {
          waiters.set(id, resolve);
          setTimeout(resolve, 250);
        });
      }
    },
  };
}

/**
 * Calls `tool` with `args`, a ping written right behind the call and then one every 10 ms
 * until the call is answered (and three after): the call's time and answer, and the longest
 * any ping waited.
 */
async function attack(
  tool: string,
  args: Record<string, unknown>,
): Promise<{ callMs: number; text: string; worstPingMs: number; pings: number }> {
  const server = startServer();
  // A server stuck in a backtracking engine answers nothing: stop it after twice the call's
  // timeout, so the test fails with that rather than waiting for the engine.
  const guard = setTimeout(() => server.child.kill('SIGKILL'), CALL_TIMEOUT_MS * 2);
  try {
    server.send(1, 'initialize', INITIALIZE_PARAMS);
    await server.answer(1);
    server.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
    const callSent = server.send(2, 'tools/call', { name: tool, arguments: args });
    let called: Answer | undefined;
    void server.answer(2).then((answer) => (called = answer));
    let worstPingMs = 0;
    let pings = 0;
    for (let id = 100, after = 0; after < 3 && pings < 2000; id += 1) {
      if (called !== undefined) after += 1;
      const sent = server.send(id, 'ping');
      const pong = await server.answer(id);
      worstPingMs = Math.max(worstPingMs, pong.at - sent);
      pings += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const answer = await server.answer(2);
    const result = answer.message.result as { content?: { text?: string }[] } | undefined;
    const text =
      answer.message.error?.message ?? (result?.content ?? []).map((c) => c.text ?? '').join('');
    return { callMs: answer.at - callSent, text, worstPingMs, pings };
  } finally {
    clearTimeout(guard);
    server.child.kill('SIGKILL');
  }
}

/**
 * The backtracking engine on the same pattern: letters are added until one test takes at
 * least `floorMs` (each letter doubles the time, so this stops within about twice that).
 */
function measureBacktracking(floorMs: number): { letters: number; ms: number } {
  const regex = new RegExp(PATTERN, 'u');
  for (let letters = 16; ; letters += 1) {
    const started = performance.now();
    expect(regex.test(`${'a'.repeat(letters)}b`)).toBe(false);
    const ms = performance.now() - started;
    if (ms >= floorMs || letters === 34) return { letters, ms };
  }
}

describe('a schema pattern that makes a backtracking engine take exponential time', () => {
  it('in an output schema: the call is refused within its timeout and every ping answered within 100 ms', async () => {
    const result = await attack('redos_output', {});
    console.log(
      `output pattern: answered in ${result.callMs.toFixed(0)} ms; ${result.pings} pings, the slowest ${result.worstPingMs.toFixed(1)} ms`,
    );
    expect(result.text).toMatch(
      /E_OUTPUT_MISMATCH Tool "redos_output" returned a result that does not fit its output schema: structuredContent\/word must match pattern "\^\(a\|a\)\*\$"/,
    );
    expect(result.callMs).toBeLessThan(CALL_TIMEOUT_MS);
    expect(result.worstPingMs).toBeLessThan(BOUND_MS);
    expect(result.pings).toBeGreaterThan(3);
  }, 60_000);

  it('in an input schema: one argument from a client is refused while every ping is answered within 100 ms', async () => {
    const result = await attack('redos_input', { word: ATTACK });
    console.log(
      `input pattern: answered in ${result.callMs.toFixed(0)} ms; ${result.pings} pings, the slowest ${result.worstPingMs.toFixed(1)} ms`,
    );
    expect(result.text).toMatch(/\/word must match pattern "\^\(a\|a\)\*\$"/);
    expect(result.callMs).toBeLessThan(CALL_TIMEOUT_MS);
    expect(result.worstPingMs).toBeLessThan(BOUND_MS);
  }, 60_000);

  it('blocks the thread in the backtracking engine the server used before, on fewer letters', () => {
    // The attack unprotected: the check the server made before, `new RegExp(pattern, 'u')`,
    // run here on the same pattern. A second is enough to show it; 34 letters would take
    // about 2^(34 - letters) times as long.
    const { letters, ms } = measureBacktracking(1000);
    const projectedSeconds = (ms * 2 ** (34 - letters)) / 1000;
    console.log(
      `^(a|a)*$, backtracking: ${letters} letters and a b took ${ms.toFixed(0)} ms; 34 would take ~${projectedSeconds.toFixed(0)} s`,
    );
    expect(ms).toBeGreaterThan(BOUND_MS * 5);
    expect(letters).toBeLessThan(34);
  }, 60_000);
});
