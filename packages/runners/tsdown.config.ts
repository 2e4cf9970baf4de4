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
});
