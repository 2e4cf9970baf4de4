import { describe, expect, it } from 'vitest';
import * as cli from './index.ts';

// The package's public contract (README "Programmatic use"): runCli and its exit codes. The
// commands' plain functions are the CLI's own structure, not an API: a program that wants the
// tools uses @toolpack/discovery or @toolpack/server.
describe('@toolpack/cli exports', () => {
  it('lists exactly runCli and the exit codes', () => {
    expect(Object.keys(cli).sort()).toEqual(['EXIT_FAILURE', 'EXIT_OK', 'EXIT_USAGE', 'runCli']);
  });
});
