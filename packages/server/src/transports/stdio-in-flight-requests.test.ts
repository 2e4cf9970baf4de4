import { describe, expect, it } from 'vitest';
import { createInFlightRequests } from './stdio-in-flight-requests.ts';

async function isSettled(promise: Promise<void>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('createInFlightRequests', () => {
  it('waits for each client request to be answered or cancelled, telling 1 from "1"', async () => {
    const inFlight = createInFlightRequests();
    expect(await isSettled(inFlight.whenAllAnswered())).toBe(true);
    inFlight.noteIncoming({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
    inFlight.noteIncoming({ jsonrpc: '2.0', id: '2', method: 'tools/call' });
    // The client's answer to a server request and a plain notification start nothing.
    inFlight.noteIncoming({ jsonrpc: '2.0', id: 7, result: {} });
    inFlight.noteIncoming({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const all = inFlight.whenAllAnswered();
    inFlight.noteOutgoing({ jsonrpc: '2.0', id: '1', result: {} });
    inFlight.noteOutgoing({ jsonrpc: '2.0', id: 9, method: 'sampling/createMessage' });
    inFlight.noteOutgoing({ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } });
    expect(await isSettled(all)).toBe(false);
    inFlight.noteIncoming({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: '2' },
    });
    expect(await isSettled(all)).toBe(true);
  });
});
