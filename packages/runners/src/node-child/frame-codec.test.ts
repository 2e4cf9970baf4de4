import { describe, expect, it } from 'vitest';
import { createFrameReader, encodeFrame } from './frame-codec.ts';

function collect(maxFrameBytes: number) {
  const messages: unknown[] = [];
  const problems: unknown[] = [];
  const feed = createFrameReader({
    maxFrameBytes,
    onMessage: (message) => messages.push(message),
    onViolation: (problem) => problems.push(problem),
  });
  return { feed, messages, problems };
}

describe('frame codec', () => {
  it('reads frames split at any byte and several in one chunk', () => {
    const frames = Buffer.concat([
      encodeFrame({ type: 'result', id: 1, text: 'é😀' }),
      encodeFrame({ type: 'log', id: 2 }),
    ]);
    for (let cut = 0; cut <= frames.length; cut += 1) {
      const { feed, messages, problems } = collect(1024);
      feed(frames.subarray(0, cut));
      feed(frames.subarray(cut));
      expect(messages).toEqual([
        { type: 'result', id: 1, text: 'é😀' },
        { type: 'log', id: 2 },
      ]);
      expect(problems).toEqual([]);
    }
  });

  it('refuses a frame over the cap from its header alone, and ignores the rest of the stream', () => {
    const { feed, messages, problems } = collect(100);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(2 ** 31, 0);
    feed(header);
    feed(encodeFrame({ after: true }));
    expect(problems).toEqual([{ kind: 'oversize', bytes: 2 ** 31 }]);
    expect(messages).toEqual([]);
  });

  it('calls a body that is not JSON malformed', () => {
    const { feed, problems } = collect(100);
    const body = Buffer.from('not json');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    feed(Buffer.concat([header, body]));
    expect(problems).toEqual([{ kind: 'malformed' }]);
  });
});
