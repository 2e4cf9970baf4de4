// Serve a folder of scripts as MCP tools over stdio from your own program:
//   node serve.mjs [folder]      (default: ./tools next to this file)
import { fileURLToPath } from 'node:url';
import { createToolpackServer, startStdioServer } from '@toolpack/server';

const folder = process.argv[2] ?? fileURLToPath(new URL('tools', import.meta.url));
const server = await createToolpackServer({
  discovery: { cwd: folder, sources: [{ scripts: '.' }] },
  log: (line) => console.error(line), // stdout belongs to the protocol
});
console.error(`serving ${server.tools.map((tool) => tool.name).join(', ')}`);

const stdio = startStdioServer(server);
await stdio.closed; // the client closed stdin
await stdio.close();
await server.close(); // stops every tool process
