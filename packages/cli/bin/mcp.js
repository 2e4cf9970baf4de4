#!/usr/bin/env node
// Plain JavaScript any Node can parse, checked before the bundle loads: an unsupported Node
// gets one line saying what to do instead of a stack from deep inside. Node 22 runs
// TypeScript modules without a flag from 22.18, and chokidar (the server's watcher) needs
// 22.22; Node 23's SQLite has no full-text search (the registry's). Keep in step with
// `engines` in package.json.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major === 22 ? minor < 22 : major < 24) {
  process.stderr.write(
    `mcp: Node ${process.version} is not supported: Toolpack needs Node 24 or newer, or 22.22+ on the 22 line. ` +
      'Install Node 24 LTS (https://nodejs.org), or run scripts/install-mcp.sh in a Toolpack clone: its mcp brings a Node.\n',
  );
  process.exit(1);
}
import('../dist/bin.mjs');
