import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createOriginCheck, normalizeOrigin } from './origin-check.ts';

const from = (origin?: string) =>
  ({ headers: origin === undefined ? {} : { origin } }) as IncomingMessage;

describe('createOriginCheck', () => {
  const check = createOriginCheck({
    hostnames: ['localhost', '127.0.0.1', '[::1]'],
    port: () => 3000,
    allowedOrigins: ['https://App.example.com:443'],
  });

  it('lets requests without an Origin and pages from its own address through', () => {
    expect(check(from())).toBeUndefined();
    expect(check(from('http://localhost:3000'))).toBeUndefined();
    expect(check(from('http://127.0.0.1:3000'))).toBeUndefined();
    expect(check(from('http://[::1]:3000'))).toBeUndefined();
    expect(check(from('https://app.example.com'))).toBeUndefined();
  });

  it('refuses other ports of localhost, other hosts and garbage, naming the flag', () => {
    expect(check(from('http://localhost:5173'))).toMatch(
      /--allowed-origin http:\/\/localhost:5173/,
    );
    expect(check(from('http://127.0.0.1'))).toBeDefined();
    expect(check(from('http://evil.example:3000'))).toBeDefined();
    expect(check(from('null'))).toBeDefined();
    expect(check(from('file:///etc/passwd'))).toBeDefined();
  });
});

describe('normalizeOrigin', () => {
  it('keeps scheme, host and a non-default port', () => {
    expect(normalizeOrigin('HTTP://LocalHost:5173/path')).toBe('http://localhost:5173');
    expect(normalizeOrigin('https://a.example:443')).toBe('https://a.example');
    expect(normalizeOrigin('not an origin')).toBeUndefined();
  });
});
