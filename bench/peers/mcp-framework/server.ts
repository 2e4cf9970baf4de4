// Peer: the same add_numbers tool on mcp-framework, set up as its README shows: a server
// that discovers tool classes in `<basePath>/tools/` (here ./tools/add-numbers.ts) and
// serves them over stdio (its default transport).
import { MCPServer } from 'mcp-framework';

const server = new MCPServer({
  name: 'mcp-framework-peer',
  version: '1.0.0',
  basePath: import.meta.dirname,
});
await server.start();
