import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import {
  createProgressLineFilter,
  MAX_ASK_LINE_BYTES,
  MAX_PROGRESS_LINE_BYTES,
  parseAskLine,
  parseProgressLine,
  type AskLine,
} from './progress-line-protocol.ts';
import type { ToolProgress } from './runner-types.ts';

describe('parseProgressLine', () => {
  it('reads the three forms', () => {
    expect(parseProgressLine('::progress 40/100 Copying files')).toEqual({
      kind: 'progress',
      progress: { progress: 40, total: 100, message: 'Copying files' },
    });
    expect(parseProgressLine('::progress 12.5% half a quarter')).toEqual({
      kind: 'progress',
      progress: { progress: 12.5, total: 100, message: 'half a quarter' },
    });
    expect(parseProgressLine('::progress 7')).toEqual({
      kind: 'progress',
      progress: { progress: 7 },
    });
    expect(parseProgressLine('::progress 3/4\r')).toEqual({
      kind: 'progress',
      progress: { progress: 3, total: 4 },
    });
  });

  it('leaves every other line alone', () => {
    for (const line of ['', 'progress 1/2', ' ::progress 1/2', '::progressive 1', '::PROGRESS 1']) {
      expect(parseProgressLine(line)).toEqual({ kind: 'other' });
    }
  });

  it('calls a line that starts like one but breaks the grammar malformed', () => {
    for (const line of [
      '::progress',
      '::progress ',
      '::progress abc',
      '::progress -1/10',
      '::progress 1/0',
      '::progress 11/10 too far',
      '::progress 101%',
      '::progress 1e3',
      '::progress 1/2/3',
      '::progress  1/2',
      `::progress 1 ${'x'.repeat(MAX_PROGRESS_LINE_BYTES)}`,
    ]) {
      expect(parseProgressLine(line), line).toEqual({ kind: 'malformed' });
    }
  });
});

describe('createProgressLineFilter', () => {
  const run = (chunks: Buffer[]) => {
    const progress: ToolProgress[] = [];
    const malformed: string[] = [];
    const filter = createProgressLineFilter({
      onProgress: (p) => progress.push(p),
      onMalformed: (line) => malformed.push(line),
    });
    const out = Buffer.concat([...chunks.map((chunk) => filter.push(chunk)), filter.end()]);
    return { progress, malformed, text: out.toString('utf8') };
  };

  it('takes progress lines out of stderr however the stream is cut', () => {
    const stream = Buffer.from(
      'before\n::progress 1/3 one\nmiddle ::progress 2/3 not at the start\n::progress 2/3 two\n' +
        '::progress oops\n::pro\nafter ünïcode\n::progress 3/3 last',
    );
    fc.assert(
      fc.property(fc.array(fc.nat(stream.length), { maxLength: 8 }), (cuts) => {
        const points = [...new Set([0, ...cuts, stream.length])].sort((a, b) => a - b);
        const chunks = points.slice(1).map((end, index) => stream.subarray(points[index], end));
        const { progress, malformed, text } = run(chunks);
        expect(progress).toEqual([
          { progress: 1, total: 3, message: 'one' },
          { progress: 2, total: 3, message: 'two' },
          { progress: 3, total: 3, message: 'last' },
        ]);
        expect(malformed).toEqual(['::progress oops']);
        expect(text).toBe(
          'before\nmiddle ::progress 2/3 not at the start\n::progress oops\n::pro\nafter ünïcode\n',
        );
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('holds back no more than one short line: a long line passes through in pieces', () => {
    const progress: ToolProgress[] = [];
    const malformed: string[] = [];
    const filter = createProgressLineFilter({
      onProgress: (p) => progress.push(p),
      onMalformed: (line) => malformed.push(line),
    });
    expect(filter.push(Buffer.from('ordinary text without an end')).toString()).toBe(
      'ordinary text without an end',
    );
    expect(filter.push(Buffer.from(' and more\n')).toString()).toBe(' and more\n');
    const long = `::progress 1 ${'y'.repeat(2 * MAX_PROGRESS_LINE_BYTES)}`;
    expect(filter.push(Buffer.from(long)).length).toBe(long.length);
    expect(filter.push(Buffer.from('\n::progress 2 ok\n')).toString()).toBe('\n');
    expect(progress).toEqual([{ progress: 2, message: 'ok' }]);
    expect(malformed).toHaveLength(1);
    expect(malformed[0]).toContain(`longer than ${MAX_PROGRESS_LINE_BYTES} bytes`);
  });
});

describe('parseAskLine', () => {
  it('reads the three kinds', () => {
    expect(parseAskLine('::ask confirm Delete 3 files?')).toEqual({
      kind: 'confirm',
      message: 'Delete 3 files?',
      choices: [],
    });
    expect(parseAskLine('::ask text Which branch?\r')).toEqual({
      kind: 'text',
      message: 'Which branch?',
      choices: [],
    });
    expect(parseAskLine('::ask choice Which colour? | red | dark green')).toEqual({
      kind: 'choice',
      message: 'Which colour?',
      choices: ['red', 'dark green'],
    });
  });

  it('refuses what breaks the grammar', () => {
    for (const line of [
      '::ask secret Password?',
      '::ask confirm ',
      '::ask choice Which colour?',
      '::ask choice Which colour?|red|red',
      `::ask text ${'x'.repeat(MAX_ASK_LINE_BYTES)}`,
    ]) {
      expect(parseAskLine(line), line).toBeUndefined();
    }
  });

  it('takes ask lines out of stderr only for a filter that handles them', () => {
    const asked: AskLine[] = [];
    const chunk = Buffer.from('before\n::ask confirm Go on?\nafter\n');
    const handling = createProgressLineFilter({
      onProgress: () => {},
      onMalformed: () => {},
      onAsk: (line) => asked.push(line),
    });
    expect(Buffer.concat([handling.push(chunk), handling.end()]).toString()).toBe(
      'before\nafter\n',
    );
    expect(asked).toEqual([{ kind: 'confirm', message: 'Go on?', choices: [] }]);
    const plain = createProgressLineFilter({ onProgress: () => {}, onMalformed: () => {} });
    expect(Buffer.concat([plain.push(chunk), plain.end()]).toString()).toBe(chunk.toString());
  });
});
