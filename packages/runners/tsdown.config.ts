import { defineConfig } from 'tsdown';

export default defineConfig({
  // The worker entry is loaded by path (new Worker(url)), so it is bundled on its own and
  // lands next to index.mjs, where resolveWorkerEntry() looks for it.
  entry: { index: 'src/index.ts', 'worker-entry': 'src/node-worker/worker-entry.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  clean: true,
});
