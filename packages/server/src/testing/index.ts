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
