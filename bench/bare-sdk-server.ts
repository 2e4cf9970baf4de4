// The floor for bench/server.ts: the same SDK as @toolpack/server, one tool registered by
// hand with McpServer.registerTool, served over stdio. Nothing of Toolpack is involved.
//
//   node bench/bare-sdk-server.ts [--tools 1000]
//
// With --tools N it also registers N tools shaped like the bench's PARAM-header scripts, so
// tools/list and memory can be compared at the same size.
import { createRequire } from 'node:module';
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

const server = new McpServer({ name: 'bare-sdk', version: '1.0.0' });
server.registerTool(
  'add_numbers',
  {
    description: 'Adds a list of numbers and returns their sum.',
    inputSchema: z.object({ numbers: z.array(z.number()).min(1).describe('The numbers to add.') }),
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  ({ numbers }) => {
    const structuredContent = { sum: numbers.reduce((a, b) => a + b, 0) };
    return {
      content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
      structuredContent,
    };
  },
);
const { values } = parseArgs({ options: { tools: { type: 'string', default: '0' } } });
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
