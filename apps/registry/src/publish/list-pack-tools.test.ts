import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseManifest } from '@toolpack/packs';
import { describe, expect, it } from 'vitest';
import { listPackTools } from './list-pack-tools.ts';

const packDir = path.join(import.meta.dirname, 'fixtures', 'credential-pack');

describe('listPackTools', () => {
  it("lists a tool whose mandatory credential the pack's credentials: bind, without the parameter", async () => {
    const file = path.join(packDir, 'toolpack.yaml');
    const { manifest } = parseManifest(readFileSync(file, 'utf8'), { path: file, kind: 'pack' });
    if (manifest === undefined) throw new Error('the fixture manifest does not parse');
    const listed = await listPackTools({ dir: packDir, manifest });
    expect(listed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(
      listed.tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})]),
    ).toEqual([['Get_ADReport', ['SearchBase']]]);
    // Without the pack's entry the same tool is refused, as a project without one refuses it.
    const unbound = await listPackTools({
      dir: packDir,
      manifest: { ...manifest, credentials: [] },
    });
    expect(unbound.tools).toEqual([]);
    expect(unbound.diagnostics.map((d) => d.code)).toContain('E_PARAMETER_TYPE');
  });
});
