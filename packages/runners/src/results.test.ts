import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHeadBuffer, createTailBuffer } from './capped-output.ts';
import {
  createResultFromOutput,
  createResultFromValue,
  limitToolResult,
  noteParsedJsonBytes,
  PARSED_JSON_GROWTH,
  sliceUtf8,
  truncateText,
} from './results.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

describe('results', { timeout: fuzzTimeout() }, () => {
  it('turns a JSON object on stdout into structuredContent, and anything else into text', () => {
    expect(createResultFromOutput('{"a":1}\n')).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
    expect(createResultFromOutput('[1]')).toEqual({ content: [{ type: 'text', text: '[1]' }] });
    expect(createResultFromOutput('{"a":')).toEqual({ content: [{ type: 'text', text: '{"a":' }] });
    expect(createResultFromOutput('')).toEqual({ content: [] });
  });

  it('turns values into results', () => {
    expect(createResultFromValue({ n: 1n }, 100)).toEqual({
      content: [{ type: 'text', text: '{"n":"1"}' }],
      structuredContent: { n: '1' },
    });
    expect(createResultFromValue('é'.repeat(100), 11).content[0]).toEqual({
      type: 'text',
      text: `${'é'.repeat(5)}\n[output truncated: 190 more bytes dropped; the limit is 11 bytes]`,
    });
  });

  it('never cuts a UTF-8 character in half', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.integer({ min: 0, max: 600 }),
        (text, limit) => {
          const sliced = sliceUtf8(Buffer.from(text, 'utf8'), limit);
          expect(Buffer.byteLength(sliced)).toBeLessThanOrEqual(limit);
          expect(text.startsWith(sliced)).toBe(true);
          const { text: cut, truncated } = truncateText(text, limit);
          expect(truncated).toBe(Buffer.byteLength(text) > limit);
          if (!truncated) expect(cut).toBe(text);
        },
      ),
      { numRuns: fuzzRuns(3_000) },
    );
  });

  it('never throws on any output a tool may print', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'binary' })),
        fc.boolean(),
        (output, truncated) => {
          const result = createResultFromOutput(output, { truncated });
          expect(Array.isArray(result.content)).toBe(true);
          if (result.structuredContent !== undefined)
            expect(typeof result.structuredContent).toBe('object');
        },
      ),
      { numRuns: fuzzRuns(3_000) },
    );
  });

  it('keeps the head and the tail of a stream within their limits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 500 }),
        (chunks, limit) => {
          const head = createHeadBuffer(limit);
          const tail = createTailBuffer(limit);
          for (const chunk of chunks) {
            head.push(Buffer.from(chunk));
            tail.push(Buffer.from(chunk));
          }
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          expect(head.toBuffer().equals(all.subarray(0, limit))).toBe(true);
          expect(head.keptBytes + head.droppedBytes).toBe(all.length);
          expect(tail.totalBytes).toBe(all.length);
          expect(Buffer.byteLength(tail.toString())).toBeLessThanOrEqual(limit * 3);
        },
      ),
      { numRuns: fuzzRuns(1_000) },
    );
  });
});

describe('limitToolResult', () => {
  const limits = { maxItems: 3, maxBytes: 200 };

  it('passes a result within both caps through as it is', () => {
    const result = { content: [{ type: 'text' as const, text: 'ok' }] };
    expect(limitToolResult(result, limits, 't')).toBe(result);
  });

  it('refuses too many items whole, naming the count, the cap and the setting', () => {
    const result = {
      content: Array.from({ length: 4 }, () => ({ type: 'text' as const, text: 'x' })),
    };
    const limited = limitToolResult(result, limits, 't');
    expect(limited.isError).toBe(true);
    expect(limited.content).toHaveLength(1);
    expect(limited.content[0]).toMatchObject({
      text: expect.stringContaining('returned 4 content items; the limit is 3'),
    });
    expect(JSON.stringify(limited)).toContain('maxResultItems');
  });

  it('refuses a result whose JSON is over the byte cap, counting structuredContent and UTF-8', () => {
    const structured = limitToolResult(
      { content: [], structuredContent: { text: 'y'.repeat(300) } },
      limits,
      't',
    );
    expect(structured.isError).toBe(true);
    expect(JSON.stringify(structured)).toContain('maxResultBytes');
    // 60 characters of 3 bytes each: 180 bytes of text, over 200 with the JSON around it.
    expect(
      limitToolResult({ content: [{ type: 'text', text: '€'.repeat(60) }] }, limits, 't').isError,
    ).toBe(true);
    expect(
      limitToolResult({ content: [{ type: 'text', text: '€'.repeat(40) }] }, limits, 't').isError,
    ).toBeUndefined();
  });

  it('takes the size of the JSON a result was parsed from as its bound, and measures it near the cap', () => {
    const small = { content: [{ type: 'text' as const, text: 'ok' }] };
    noteParsedJsonBytes(small, 40);
    expect(limitToolResult(small, limits, 't')).toBe(small);
    // 6 x 70 bytes could pass the cap of 200: measured, and the noted size is not trusted.
    const text = JSON.stringify({ content: [{ type: 'text', text: 'y'.repeat(250) }] });
    const parsed = JSON.parse(text) as { content: { type: 'text'; text: string }[] };
    noteParsedJsonBytes(parsed, 70);
    expect(limitToolResult(parsed, limits, 't').isError).toBe(true);
  });

  it('never serializes parsed JSON to more than PARSED_JSON_GROWTH times its UTF-8 bytes, whatever the bytes', () => {
    // The worst case known: 1e20 prints as its 21 digits, 4 bytes written, 21 read back.
    for (const text of ['1e20', `[${Array(100).fill('1e20').join(',')}]`]) {
      const grown = Buffer.byteLength(JSON.stringify(JSON.parse(text)), 'utf8');
      expect(grown).toBeGreaterThan(text.length * 4);
      expect(grown).toBeLessThanOrEqual(text.length * PARSED_JSON_GROWTH);
    }
    fc.assert(
      fc.property(
        fc.json(),
        fc.uint8Array({ maxLength: 40 }),
        // Numbers that print longer than written: 1e20 prints as 21 digits.
        fc.array(fc.constantFrom('1e20', '-1E20', '1e21', '-1E400', '1.0e-7', '1e-6', '0'), {
          maxLength: 60,
        }),
        (json, raw, numbers) => {
          // Bytes of any kind inside a string (invalid UTF-8 included), and numbers that grow.
          const bytes = Buffer.concat([
            Buffer.from(`{"v":${json},"n":[${numbers.join(',')}],"s":"`),
            Buffer.from(raw.filter((b) => b !== 0x22 && b !== 0x5c && b >= 0x20)),
            Buffer.from('"}'),
          ]);
          const parsed = JSON.parse(bytes.toString('utf8')) as unknown;
          expect(Buffer.byteLength(JSON.stringify(parsed), 'utf8')).toBeLessThanOrEqual(
            bytes.length * PARSED_JSON_GROWTH,
          );
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });
});
