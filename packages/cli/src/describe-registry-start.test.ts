import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRegistryStart } from './describe-registry-start.ts';

const clone = path.resolve(import.meta.dirname, '..', '..', '..');

describe('describeRegistryStart', () => {
  it("from a clone, names the clone's command with the port asked for", async () => {
    expect(await describeRegistryStart('http://127.0.0.1:4873')).toBe(
      `Start the gallery from this clone: cd ${clone} && pnpm registry (it serves the official packs on http://127.0.0.1:4873), or use a folder of packs: --registry <folder> or TOOLPACK_REGISTRY=<folder> (each pack a subfolder with its toolpack.yaml).`,
    );
    expect(await describeRegistryStart('http://localhost:5001/')).toMatch(
      /&& pnpm registry --port 5001 \(it serves the official packs on http:\/\/localhost:5001\)/,
    );
  });

  it('has nothing to say about a registry on another machine or a folder', async () => {
    expect(await describeRegistryStart('https://registry.example.com')).toBeUndefined();
    expect(await describeRegistryStart('/srv/packs')).toBeUndefined();
  });
});
