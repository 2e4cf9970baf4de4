// The bench package lists the frameworks, not their schema libraries: each peer borrows the
// zod its framework depends on, so the schema objects are the ones that framework checks
// with `instanceof` (mcp-framework) or reads through Standard Schema (FastMCP).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The smallest slice of zod 3 and 4 the peers use to declare `{ numbers: number[] }`. */
export interface BorrowedZod {
  z: {
    object(shape: Record<string, unknown>): unknown;
    number(): unknown;
    array(item: unknown): { min(n: number): { describe(text: string): unknown } };
  };
}

type ExportTarget = string | { import?: ExportTarget; default?: ExportTarget } | undefined;

function pickImportTarget(target: ExportTarget): string | undefined {
  if (typeof target === 'string' || target === undefined) return target;
  return pickImportTarget(target.import ?? target.default);
}

/**
 * Imports the ESM entry of `specifier` as seen from the package `framework` (a bench
 * dependency). The ESM entry, not require.resolve's CommonJS one: zod ships both, and a
 * CommonJS copy would fail mcp-framework's `instanceof z.ZodObject`.
 */
export async function importFromFramework<T>(framework: string, specifier: string): Promise<T> {
  // import.meta.resolve, not require.resolve: mcp-framework exports an `import` entry only.
  const frameworkEntry = fileURLToPath(import.meta.resolve(framework));
  const manifestPath = createRequire(frameworkEntry).resolve(`${specifier}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    exports?: Record<string, ExportTarget>;
    module?: string;
    main?: string;
  };
  const entry = pickImportTarget(manifest.exports?.['.']) ?? manifest.module ?? manifest.main;
  if (entry === undefined) throw new Error(`${specifier} (from ${framework}) has no ESM entry`);
  const resolved = path.join(path.dirname(manifestPath), entry);
  return (await import(pathToFileURL(resolved).href)) as T;
}
