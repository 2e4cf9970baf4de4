// `@toolpack/cli/testing`: what the suites outside this package (tests/system, tests/seeds)
// need from the CLI. A workspace-only entry (no publishConfig export, no build): it runs the
// CLI from its sources, which a published package does not carry.
export { runMcp, startMcp } from './run-mcp.ts';
export type { McpRun } from './run-mcp.ts';
export { describePackTools } from '../commands/pack/discover-pack-tools.ts';
