import { defineConfig } from 'tsdown';

export default defineConfig({
  // The CLI is its own entry so `toolpack-registry` runs without loading the test helpers.
  entry: { index: 'src/index.ts', cli: 'src/cli.ts', testing: 'src/testing/index.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
  // Timing warnings depend on how loaded the machine is, not on the code; on shared CI
  // machines they only added noise (with raw colour escapes) to the build log.
  checks: { bundlerTimings: false },
});
