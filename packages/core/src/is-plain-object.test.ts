import { describe, expect, it } from 'vitest';
import { isPlainObject } from './is-plain-object.ts';

describe('isPlainObject', () => {
  it('accepts object literals, parsed JSON and null-prototype objects', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(JSON.parse('{"__proto__": {"a": 1}}'))).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
  });

  it('refuses null, arrays, primitives and class instances', () => {
    for (const value of [null, undefined, [], 'x', 1, new Date(0), new Map(), new (class {})()])
      expect(isPlainObject(value)).toBe(false);
  });
});
