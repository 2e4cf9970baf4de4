export {
  childEnv,
  cliBin,
  examples,
  isAlive,
  repo,
  spawnServe,
  startHttpServe,
  startStdioSession,
  waitFor,
} from './serve-helpers.ts';
export type { SpawnedServer, StdioSession } from './serve-helpers.ts';
export { hasInspector, inspectorBin, runInspectorCli } from './inspector-cli.ts';
export type { InspectorCliResult, RunInspectorCliOptions } from './inspector-cli.ts';
export { listDescendants } from './list-descendants.ts';
