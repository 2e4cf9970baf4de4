import { defineConfig } from 'tsdown';

export default defineConfig({
  // The module child's entry is started by path (node <entry>), so it is bundled on its own and
  // lands next to index.mjs, where resolveChildEntry() looks for it.
  entry: { index: 'src/index.ts', 'node-child-entry': 'src/node-child/child-entry.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
  // Timing warnings depend on how loaded the machine is, not on the code; on shared CI
  // machines they only added noise (with raw colour escapes) to the build log.
  checks: { bundlerTimings: false },
});
