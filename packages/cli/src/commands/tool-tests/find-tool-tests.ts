import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { DiscoveredTool } from '@toolpack/core';

export type TestFileRunner = 'pwsh' | 'node';

export interface ToolTestFile {
  /** Absolute. */
  path: string;
  runner: TestFileRunner;
}

/** What `node --test` runs; TypeScript through Node's own type stripping. */
export const NODE_TEST_EXTENSIONS = ['.mjs', '.js', '.cjs', '.ts', '.mts', '.cts'] as const;

function runnerFor(fileName: string): TestFileRunner | undefined {
  const extension = path.extname(fileName).toLowerCase();
  if (extension === '.ps1') return 'pwsh';
  return (NODE_TEST_EXTENSIONS as readonly string[]).includes(extension) ? 'node' : undefined;
}

/** `x.test.mjs` -> `x`; undefined when the name is not `<stem>.test.<ext>`. */
function testStem(fileName: string): string | undefined {
  const match = /^(.+)\.test\.[^.]+$/i.exec(fileName);
  return match?.[1];
}

export interface TestFinder {
  find(tool: DiscoveredTool): Promise<ToolTestFile[]>;
}

/**
 * Finds each tool's tests by where they sit:
 * - a dotbot tool folder: `test.ps1` (dotbot's own name), `test.<js|mjs|ts|...>`, and any
 *   `*.test.<ext>` in the folder;
 * - a script, BASIC script, JS/TS module or workflow file `X.<ext>`: `X.test.<ext>` beside it
 *   (`X.test.ps1` for PowerShell, `X.test.mjs`/`.ts`/... for node:test);
 * - a PowerShell module: `X.test.ps1` beside its `.psm1` or `.psd1`.
 * Pester's `*.Tests.ps1` are not ours to run: they need Pester. Folder listings are cached,
 * so a folder of 50 scripts is read once.
 */
export function createTestFinder(): TestFinder {
  const listings = new Map<string, Promise<string[]>>();
  const list = (dir: string): Promise<string[]> => {
    let listing = listings.get(dir);
    if (listing === undefined) {
      listing = readdir(dir, { withFileTypes: true }).then(
        (entries) => entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name),
        () => [],
      );
      listings.set(dir, listing);
    }
    return listing;
  };

  const besideFile = async (file: string): Promise<ToolTestFile[]> => {
    const dir = path.dirname(file);
    const stem = path.basename(file, path.extname(file)).toLowerCase();
    return (await list(dir))
      .filter((name) => testStem(name)?.toLowerCase() === stem)
      .flatMap((name) => {
        const runner = runnerFor(name);
        return runner === undefined ? [] : [{ path: path.join(dir, name), runner }];
      });
  };

  return {
    async find(tool) {
      const source = tool.source;
      if (!path.isAbsolute(source.path)) return [];
      if (source.kind === 'tool-folder') {
        const dir = path.dirname(source.path);
        return (await list(dir)).flatMap((name) => {
          const lower = name.toLowerCase();
          const isTest = /^test\.[^.]+$/.test(lower) || testStem(lower) !== undefined;
          const runner = isTest ? runnerFor(lower) : undefined;
          return runner === undefined ? [] : [{ path: path.join(dir, name), runner }];
        });
      }
      const files = new Set([source.path]);
      const invocation = tool.invocation;
      if (invocation.runner === 'pwsh' && invocation.mode === 'module') {
        if (path.isAbsolute(invocation.modulePath)) files.add(invocation.modulePath);
      }
      const found = await Promise.all([...files].map((file) => besideFile(file)));
      const unique = new Map<string, ToolTestFile>();
      for (const file of found.flat()) unique.set(file.path, file);
      return [...unique.values()].sort((a, b) => a.path.localeCompare(b.path));
    },
  };
}
