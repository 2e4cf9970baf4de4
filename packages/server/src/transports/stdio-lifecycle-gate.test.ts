import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createLifecycleGate } from './stdio-lifecycle-gate.ts';

const request = (id: number, method: string, version?: string) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: version === undefined ? {} : { _meta: { [PROTOCOL_VERSION_META_KEY]: version } },
});

describe('createLifecycleGate', () => {
  it('refuses a request before initialize, and lets initialize and ping through', () => {
    const gate = createLifecycleGate();
    expect(gate(request(1, 'tools/list'))).toMatchObject({ id: 1, code: -32000 });
    expect(gate(request(2, 'ping'))).toBeUndefined();
    expect(gate(request(3, 'initialize'))).toBeUndefined();
    expect(gate(request(4, 'tools/list'))).toBeUndefined();
  });

  it('refuses a later 2026 request naming a version the connection does not speak', () => {
    const gate = createLifecycleGate();
    expect(gate(request(1, 'tools/list', '2026-07-28'))).toBeUndefined();
    expect(gate(request(2, 'tools/list', '1999-01-01'))).toEqual({
      id: 2,
      code: -32022,
      message: expect.stringContaining('Unsupported protocol version: 1999-01-01'),
      data: { supported: ['2026-07-28'], requested: '1999-01-01' },
    });
    // A 2025 revision is negotiated by initialize, never named per request.
    expect(gate(request(3, 'tools/call', '2025-11-25'))).toMatchObject({ code: -32022 });
    expect(gate(request(4, 'tools/list', '2026-07-28'))).toBeUndefined();
    expect(gate(request(5, 'tools/list'))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('io.modelcontextprotocol/protocolVersion'),
    });
  });

  it('leaves the first request’s version to the SDK, which refuses it itself', () => {
    const gate = createLifecycleGate();
    expect(gate(request(1, 'tools/list', '1999-01-01'))).toBeUndefined();
  });

  it('does not look at envelopes on a 2025 session', () => {
    const gate = createLifecycleGate();
    expect(gate(request(1, 'initialize'))).toBeUndefined();
    expect(gate(request(2, 'tools/list', '1999-01-01'))).toBeUndefined();
  });
});
