// The floor for bench/server.ts: the same SDK as @toolpack/server, one tool registered by
// hand with McpServer.registerTool, served over stdio. Nothing of Toolpack is involved.
//
//   node bench/bare-sdk-server.ts [--tools 1000] [--hop]
//
// With --tools N it also registers N tools shaped like the bench's PARAM-header scripts, so
// tools/list and memory can be compared at the same size.
//
// With --hop the tool runs in a long-lived child process instead of on the protocol thread:
// its arguments go out and its result comes back as one length-prefixed JSON frame each way
// on a socket (fd 3), as Toolpack's runner sends them, and nothing else. That is the floor of
// any server that keeps a JS tool off the protocol thread (issue 14), so the bench can tell the
// hop's own cost from the rest of a call.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

// The bench package does not depend on the SDK itself: borrow @toolpack/server's copy, so
// both sides run exactly the same SDK version.
const require = createRequire(
  path.join(import.meta.dirname, '..', 'packages', 'server', 'package.json'),
);
const load = async <T>(specifier: string): Promise<T> =>
  (await import(pathToFileURL(require.resolve(specifier)).href)) as T;

interface SdkServer {
  McpServer: new (
    info: { name: string; version: string },
    options?: Record<string, unknown>,
  ) => {
    registerTool(
      name: string,
      config: Record<string, unknown>,
      run: (args: { numbers: number[] }) => unknown,
    ): unknown;
    connect(transport: unknown): Promise<void>;
  };
}

const { McpServer } = await load<SdkServer>('@modelcontextprotocol/server');
const { StdioServerTransport } = await load<{ StdioServerTransport: new () => unknown }>(
  '@modelcontextprotocol/server/stdio',
);
interface Zod {
  z: {
    object(shape: Record<string, unknown>): unknown;
    number(): unknown;
    string(): { describe(text: string): unknown };
    enum(values: string[]): { optional(): { describe(text: string): unknown } };
    array(item: unknown): { min(n: number): { describe(text: string): unknown } };
  };
}
const { z } = await load<Zod>('zod');

const { values } = parseArgs({
  options: { tools: { type: 'string', default: '0' }, hop: { type: 'boolean', default: false } },
});

const addNumbers = ({ numbers }: { numbers: number[] }) => {
  const structuredContent = { sum: numbers.reduce((a, b) => a + b, 0) };
  return {
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
};

function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

// The child's whole program: read frames, run the tool, answer with a frame. The frame reader
// is the bare minimum (a frame may still arrive in pieces, so it buffers).
const CHILD_PROGRAM = `
const { Socket } = require('node:net');
const channel = new Socket({ fd: 3, readable: true, writable: true });
const addNumbers = ${addNumbers.toString()};
const encodeFrame = ${encodeFrame.toString()};
let pending = Buffer.alloc(0);
channel.on('data', (chunk) => {
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
    const end = 4 + pending.readUInt32BE(0);
    const { id, args } = JSON.parse(pending.subarray(4, end).toString());
    pending = pending.subarray(end);
    channel.write(encodeFrame({ id, result: addNumbers(args) }));
  }
});
channel.on('end', () => process.exit(0));
`;

/** Runs add_numbers in a child process: one frame out, one frame back per call. */
function startHop(): (args: { numbers: number[] }) => Promise<unknown> {
  const child = spawn(process.execPath, ['-e', CHILD_PROGRAM], {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  const channel = child.stdio[3] as Duplex;
  const waiting = new Map<number, (result: unknown) => void>();
  let nextId = 1;
  let pending: Buffer = Buffer.alloc(0);
  channel.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
      const end = 4 + pending.readUInt32BE(0);
      const { id, result } = JSON.parse(pending.subarray(4, end).toString()) as {
        id: number;
        result: unknown;
      };
      pending = pending.subarray(end);
      waiting.get(id)?.(result);
      waiting.delete(id);
    }
  });
  // The server ends with its stdin; the child ends with the channel.
  process.stdin.once('end', () => channel.end());
  return (args) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      channel.write(encodeFrame({ id, args }));
    });
}

const server = new McpServer({ name: 'bare-sdk', version: '1.0.0' });
server.registerTool(
  'add_numbers',
  {
    description: 'Adds a list of numbers and returns their sum.',
    inputSchema: z.object({ numbers: z.array(z.number()).min(1).describe('The numbers to add.') }),
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  values.hop ? startHop() : addNumbers,
);
for (let i = 0; i < Number(values.tools); i++) {
  server.registerTool(
    `count_words_${i}`,
    {
      description: `Counts the words of text number ${i}.`,
      inputSchema: z.object({
        text: z.string().describe('The text to count.'),
        unit: z.enum(['lines', 'words']).optional().describe('What to count.'),
      }),
    },
    () => ({ content: [{ type: 'text', text: '0' }] }),
  );
}
await server.connect(new StdioServerTransport());
