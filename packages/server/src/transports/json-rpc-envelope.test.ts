import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkMessageDepth,
  checkMessageEnvelope,
  MAX_MESSAGE_DEPTH,
  nestsDeeperThan,
} from './json-rpc-envelope.ts';

const nest = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}1${']'.repeat(levels)}`);
const call = (args: unknown) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 't', arguments: args },
});

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, not scalars', () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [{}] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{}] }, 2)).toBe(true);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    expect(nestsDeeperThan(nest(100_000), MAX_MESSAGE_DEPTH)).toBe(true);
  });

  it('agrees with a recursive depth count', () => {
    const depthOf = (value: unknown): number =>
      typeof value === 'object' && value !== null
        ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
        : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(10), (value, limit) => {
        expect(nestsDeeperThan(value, limit)).toBe(depthOf(value) > limit);
      }),
    );
  });
});

describe('checkMessageDepth', () => {
  it('answers an over-deep request with -32602 and its id', () => {
    expect(checkMessageDepth(call(nest(10_000)))).toEqual({
      id: 7,
      code: -32602,
      message: `Invalid params: the message nests more than ${MAX_MESSAGE_DEPTH} levels deep; flatten the arguments.`,
    });
  });

  it('answers an over-deep batch or notification with -32600', () => {
    expect(checkMessageDepth([call(nest(10_000))])?.code).toBe(-32600);
    expect(checkMessageDepth({ jsonrpc: '2.0', method: 'x', params: { a: nest(500) } })).toEqual(
      expect.objectContaining({ id: null, code: -32600 }),
    );
  });

  it('lets arguments nested up to the limit through', () => {
    // The envelope, params and arguments objects take three of the levels.
    expect(checkMessageDepth(call({ a: nest(MAX_MESSAGE_DEPTH - 3) }))).toBeUndefined();
    expect(checkMessageDepth(call({ a: nest(MAX_MESSAGE_DEPTH - 2) }))?.code).toBe(-32602);
  });
});

describe('checkMessageEnvelope', () => {
  it('passes a well-formed request and refuses a deep one', () => {
    expect(checkMessageEnvelope(call({ a: 1 }))).toBeUndefined();
    expect(checkMessageEnvelope(call(nest(1_000)))?.code).toBe(-32602);
  });
});
