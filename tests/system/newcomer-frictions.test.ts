import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRegistry } from '../../apps/registry/src/start-registry.ts';
import { runMcp, startMcp } from '@toolpack/cli/testing';
import { repo } from './system-helpers.ts';
import { pwshEngine } from '@toolpack/pwsh-probe';

const scripts = path.join(repo, 'examples', 'scripts');

function countWords(args: string[]): unknown {
  const run = runMcp(['-C', scripts, 'call', 'word_count', ...args], { cwd: scripts });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

describe('the word_count example', () => {
  it('counts a one-line text without a trailing newline as one line', () => {
    expect(countWords(['--arg', 'text=one two three'])).toEqual({ lines: 1, words: 3, chars: 13 });
  });

  it('counts lines as an editor shows them, trailing newlines and empty text included', () => {
    expect(countWords(['--args', '{"text": "a\\nb"}'])).toEqual({ lines: 2, words: 2, chars: 3 });
    expect(countWords(['--args', '{"text": "a\\nb\\n"}'])).toEqual({
      lines: 2,
      words: 2,
      chars: 4,
    });
    expect(countWords(['--args', '{"text": "a\\n\\n"}'])).toEqual({ lines: 2, words: 1, chars: 3 });
    expect(countWords(['--args', '{"text": ""}'])).toEqual({ lines: 0, words: 0, chars: 0 });
  });

  it('counts only the unit asked for', () => {
    expect(countWords(['--args', '{"text": "one two", "unit": "words"}'])).toEqual({ words: 2 });
  });
});

/** Ports and hashes differ from run to run; what the example shows must not. */
function normalizeLock(text: string): string {
  return text
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/sha512\/[0-9a-f]{128}/g, 'sha512/HEX')
    .replace(/sha512-[A-Za-z0-9+/]{86}==/g, 'sha512-BASE64');
}

describe("the packs README's toolpack.lock example", () => {
  it('is what `mcp pack add jira` writes from an HTTP registry', async () => {
    const readme = readFileSync(path.join(repo, 'packages', 'packs', 'README.md'), 'utf8');
    const example = /\*\*`toolpack\.lock`\*\*[^`]*```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'the README shows a toolpack.lock').toBeDefined();
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-readme-lock-'));
    const registry = await startRegistry({
      port: 0,
      dataDir: path.join(temp, 'registry'),
      rateLimits: false,
      sweep: false,
    });
    try {
      const project = path.join(temp, 'project');
      // Not runMcp: its spawnSync would block the registry that must answer this process.
      const run = await startMcp(
        ['-C', project, 'pack', 'add', 'jira', '--yes', '--registry', registry.url],
        {
          cwd: temp,
          env: { ...process.env, TOOLPACK_CACHE_DIR: path.join(temp, 'cache') },
        },
      );
      expect(run.stderr).not.toMatch(/error/i);
      expect(run.code).toBe(0);
      const written = readFileSync(path.join(project, 'toolpack.lock'), 'utf8');
      expect(normalizeLock(example ?? '')).toBe(normalizeLock(written));
    } finally {
      await registry.close();
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

describe('the test summary', () => {
  // A label says what a test needs; the summary names only what this machine lacks, so a test
  // skipped on a machine that has /proc (these tests run on Linux) does not blame /proc.
  it('lists the skipped tests grouped by the needs their titles give that this machine lacks', () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-summary-'));
    try {
      const test = (ancestorTitles: string[], title: string, status: string) => ({
        ancestorTitles,
        title,
        fullName: [...ancestorTitles, title].join(' '),
        status,
      });
      const results = path.join(temp, 'results.json');
      writeFileSync(
        results,
        JSON.stringify({
          numPassedTests: 1,
          numFailedTests: 0,
          numPendingTests: 5,
          numTodoTests: 0,
          testResults: [
            {
              status: 'passed',
              assertionResults: [
                test([], 'runs anywhere', 'passed'),
                test([], 'runs on the moon [needs a lunar base]', 'skipped'),
                test(['kills trees [needs /proc]'], 'at the timeout', 'pending'),
                test(['kills trees [needs /proc]'], 'on abort', 'pending'),
                test([], '[pwsh] runs a module', 'skipped'),
                test(['Inspector CLI [needs Inspector]'], '[pwsh] calls a module', 'skipped'),
              ],
            },
          ],
        }),
      );
      const run = spawnSync(
        process.execPath,
        [path.join(repo, 'scripts', 'print-test-summary.mjs'), results],
        { cwd: repo, encoding: 'utf8' },
      );
      expect(run.stderr).toBe('');
      const lines = run.stdout.split('\n');
      expect(lines).toEqual([
        'skipped tests (5), by reason:',
        "  skipped by the test's own condition: this machine has /proc (2):",
        '    - kills trees [needs /proc] at the timeout',
        '    - kills trees [needs /proc] on abort',
        pwshEngine
          ? `  skipped by the test's own condition: this machine has PowerShell (${pwshEngine.description}) (2):`
          : '  needs PowerShell (none on PATH) (2):',
        '    - [pwsh] runs a module',
        '    - Inspector CLI [needs Inspector] [pwsh] calls a module',
        '  needs a lunar base (1):',
        '    - runs on the moon [needs a lunar base]',
        expect.stringMatching(/^PowerShell tests: 0 passed, 0 failed, 2 skipped, on /),
        '1 passed, 0 failed, 5 skipped',
        '',
      ]);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
