import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMcp } from '../../packages/cli/src/testing/run-mcp.ts';
import { repo } from './system-helpers.ts';

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
