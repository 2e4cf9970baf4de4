import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import type { PackToolSummary } from '../registry/registry-types.ts';

/**
 * A stand-in for discovery in this package's own tests (packs cannot depend on discovery):
 * each `scripts:` file with a `// DESCRIPTION "..."` header is a tool named after the file.
 */
export async function describeScriptTools(
  packDir: string,
  manifest: PackManifest,
): Promise<PackToolSummary[]> {
  const tools: PackToolSummary[] = [];
  for (const source of manifest.sources) {
    if (!('scripts' in source)) continue;
    const dir = path.join(packDir, source.scripts);
    for (const file of (await readdir(dir)).sort()) {
      const text = await readFile(path.join(dir, file), 'utf8');
      const description = /DESCRIPTION "([^"]*)"/.exec(text)?.[1];
      if (description === undefined) continue;
      tools.push({
        name: path.basename(file, path.extname(file)).replace(/-/g, '_'),
        description,
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      });
    }
  }
  return tools;
}
