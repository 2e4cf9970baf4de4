import { defineConfig } from 'vitest/config';

// Tests run against package sources, never a prior build: the `@toolpack/source`
// export condition points every workspace package at its `src/index.ts`.
const conditions = ['@toolpack/source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@toolpack/source'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'registry/packs/*/**/*.test.ts',
      'bench/**/*.test.ts',
      'tests/**/*.test.ts',
      'tools/*/src/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**', '**/fixtures/**'],
    setupFiles: ['scripts/vitest-setup.ts'],
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    // Child Node processes the tests spawn (the CLI, module loaders) resolve workspace
    // packages to their sources too.
    env: { NODE_OPTIONS: '--conditions=@toolpack/source' },
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
