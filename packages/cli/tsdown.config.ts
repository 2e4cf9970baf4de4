import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts'],
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
  // Timing warnings depend on how loaded the machine is, not on the code; on shared CI
  // machines they only added noise (with raw colour escapes) to the build log.
  checks: { bundlerTimings: false },
});
