import { expect, it } from 'vitest';
import * as entry from './index.ts';

// The public surface as a literal list: adding or removing a name is a visible change here,
// made on purpose, never a side effect of exporting something for a neighbour inside.
it('@toolpack/runners exports exactly these runtime names', () => {
  expect(Object.keys(entry).sort()).toEqual([
    'DEFAULT_ENV_ALLOW_LIST',
    'WITHHELD_ENV_NAMES',
    'bindParameterSet',
    'buildToolEnvironment',
    'checkToolArguments',
    'checkToolResult',
    'createToolRunner',
    'describeContainment',
    'describeSandbox',
    'findWithheldAllowListEntries',
    'formatMissingPwshMessage',
    'getDefaultInterpreters',
    'resolveHostScriptPath',
  ]);
});
