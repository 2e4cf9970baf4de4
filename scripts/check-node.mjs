// Exits 1 with one line when the Node running it cannot run Toolpack from this clone, before
// anything else loads (a .ts entry on an old Node fails with a stack instead). Run it
// (`node scripts/check-node.mjs`, as toolchain.sh and install-mcp.sh do) or preload it
// (`node --import ./scripts/check-node.mjs ...`, as `pnpm registry` does). Node 22 runs
// TypeScript modules without a flag from 22.18 and chokidar needs 22.22; Node 23's SQLite
// has no full-text search. Keep in step with `engines` in package.json.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major === 22 ? minor < 22 : major < 24) {
  process.stderr.write(
    `toolpack: Node ${process.version} is not supported: Toolpack needs Node 24 or newer, or 22.22+ on the 22 line. ` +
      'Run `source scripts/toolchain.sh` (it installs Node 24 into .tools/ when needed), or install Node 24 LTS.\n',
  );
  process.exit(1);
}
