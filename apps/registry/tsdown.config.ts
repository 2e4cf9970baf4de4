import { defineConfig } from 'tsdown';

export default defineConfig({
  // The CLI is its own entry so `toolpack-registry` runs without loading the test helpers.
  entry: { index: 'src/index.ts', cli: 'src/cli.ts', testing: 'src/testing/index.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
});
