import { describe, expect, it } from 'vitest';
import * as discovery from './index.ts';

// The package's public contract: a new runtime export is a decision, not a side effect.
describe('@toolpack/discovery exports', () => {
  it('lists exactly the names other packages and users need', () => {
    expect(Object.keys(discovery).sort()).toEqual([
      'REFUSING_CODES',
      'composeTools',
      'createCallToolBuiltin',
      'createToolSearchIndex',
      'describeTool',
      'discoverTools',
      'findTools',
      'parseReference',
      'splitWords',
      'suggestToolNames',
    ]);
  });
});
