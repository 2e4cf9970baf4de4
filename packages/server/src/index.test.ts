import { describe, expect, it } from 'vitest';
import * as server from './index.ts';
import * as testing from './testing/index.ts';

// The public surface as a literal list: adding or removing a name is a visible change here,
// made on purpose, never a side effect of exporting something for a neighbour inside.
describe('@toolpack/server exports', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(server).sort()).toEqual([
      'DEFAULT_WATCH_DEBOUNCE_MS',
      'DIALECT_PROVIDERS',
      'PROVIDER_RULES',
      'createToolDispatcher',
      'createToolpackServer',
      'findRuleViolations',
      'findToolRuleViolations',
      'refuseNetworkedToolsWithoutToken',
      'startHttpServer',
      'startStdioServer',
      'toListedTool',
    ]);
  });

  it('keeps the helpers that spawn mcp serve in the testing entry', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'childEnv',
      'cliBin',
      'examples',
      'hasInspector',
      'inspectorBin',
      'isAlive',
      'listDescendants',
      'repo',
      'runInspectorCli',
      'spawnServe',
      'startHttpServe',
      'startStdioSession',
      'waitFor',
    ]);
  });
});
