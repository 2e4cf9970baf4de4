// Peer: the same add_numbers tool on FastMCP (TypeScript), registered as its README shows:
// `new FastMCP({ name, version })`, `server.addTool({ name, description, parameters: z.object(...),
// outputSchema, execute })`, `server.start({ transportType: 'stdio' })`.
import { FastMCP } from 'fastmcp';
import { importFromFramework, type BorrowedZod } from './borrow.ts';

const { z } = await importFromFramework<BorrowedZod>('fastmcp', 'zod');

const server = new FastMCP({ name: 'fastmcp-peer', version: '1.0.0' });
server.addTool({
  name: 'add_numbers',
  description: 'Adds a list of numbers and returns their sum.',
  // Borrowed zod is typed loosely above; FastMCP only needs a Standard Schema here.
  parameters: z.object({
    numbers: z.array(z.number()).min(1).describe('The numbers to add.'),
  }) as Parameters<typeof server.addTool>[0]['parameters'],
  outputSchema: z.object({ sum: z.number() }) as Parameters<
    typeof server.addTool
  >[0]['outputSchema'],
  annotations: { readOnlyHint: true, idempotentHint: true },
  execute: async (args) => {
    const { numbers } = args as { numbers: number[] };
    return { sum: numbers.reduce((a, b) => a + b, 0) };
  },
});
await server.start({ transportType: 'stdio' });
