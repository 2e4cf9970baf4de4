// Discovered by ../server.ts the way mcp-framework documents: a default-exported MCPTool
// subclass with a zod schema whose fields all carry descriptions.
import { MCPTool } from 'mcp-framework';
import { importFromFramework, type BorrowedZod } from '../../borrow.ts';

const { z } = await importFromFramework<BorrowedZod>('mcp-framework', 'zod');

export default class AddNumbersTool extends MCPTool {
  name = 'add_numbers';
  description = 'Adds a list of numbers and returns their sum.';
  schema = z.object({ numbers: z.array(z.number()).min(1).describe('The numbers to add.') });

  async execute(input: { numbers: number[] }): Promise<{ sum: number }> {
    return { sum: input.numbers.reduce((a, b) => a + b, 0) };
  }
}
