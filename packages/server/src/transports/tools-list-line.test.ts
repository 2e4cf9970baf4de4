import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { discoverTools } from '@toolpack/discovery';
import type { ToolRunner } from '@toolpack/runners';
import { serveTools } from '../served-tools.ts';
import { findToolsListLine } from './tools-list-line.ts';

// No source: the built-ins alone.
const { tools } = await discoverTools({ sources: [], cwd: os.tmpdir(), cache: false });
const served = serveTools({
  tools,
  diagnostics: [],
  verdictOf: () => ({ allowed: true }),
  // The dispatcher is never called here.
  runner: {} as ToolRunner,
});

describe('findToolsListLine', () => {
  it('sends the list serialized at reload time, with the answer id', () => {
    const line = findToolsListLine({ jsonrpc: '2.0', id: 'a"b', result: { tools: served.listed } });
    expect(line).toBe(`{"result":{"tools":${served.listedJson}},"jsonrpc":"2.0","id":"a\\"b"}\n`);
    expect(JSON.parse(line!)).toEqual({
      jsonrpc: '2.0',
      id: 'a"b',
      result: { tools: JSON.parse(JSON.stringify(served.listed)) },
    });
  });

  it('leaves every other message to the SDK', () => {
    const copy = [...served.listed];
    for (const message of [
      undefined,
      'text',
      { jsonrpc: '2.0', id: 1, result: { tools: copy } },
      { jsonrpc: '2.0', id: 1, result: { tools: served.listed, nextCursor: 'x' } },
      { jsonrpc: '2.0', id: 1, result: { tools: served.listed }, extra: true },
      { jsonrpc: '2.0', id: null, result: { tools: served.listed } },
      { jsonrpc: '1.0', id: 1, result: { tools: served.listed } },
      { jsonrpc: '2.0', id: 1, result: { content: [] } },
    ]) {
      expect(findToolsListLine(message)).toBeUndefined();
    }
  });
});
