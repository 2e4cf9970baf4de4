import { cp } from 'node:fs/promises';
import path from 'node:path';
import { createHttpRegistry } from '@toolpack/packs';
import { afterAll, describe, expect, it } from 'vitest';
import { listPackTools, type PackToolLister } from './publish/list-pack-tools.ts';
import { startRegistry } from './start-registry.ts';
import { FIXTURE_PACKS, makeTempDir, removeTempDirs } from './testing/registry-fixtures.ts';

afterAll(removeTempDirs);

describe('a registry still publishing its seed packs', () => {
  it('is not ready and does not pretend the gallery is empty until seeding is done', async () => {
    const seedDir = await makeTempDir();
    for (const pack of ['notes', 'weather'])
      await cp(path.join(FIXTURE_PACKS, pack), path.join(seedDir, pack), { recursive: true });
    // Seeding is held at its first pack until the test has asked its questions.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let markSeeding!: () => void;
    const seedingStarted = new Promise<void>((resolve) => (markSeeding = resolve));
    const listTools: PackToolLister = async (input) => {
      markSeeding();
      await held;
      return listPackTools(input);
    };
    let markListening!: (url: string) => void;
    const listening = new Promise<string>((resolve) => (markListening = resolve));
    const starting = startRegistry({
      port: 0,
      dataDir: await makeTempDir(),
      seedDir,
      listTools,
      rateLimits: false,
      sweep: false,
      onListening: markListening,
    });
    const url = await listening;
    await seedingStarted;
    let registry;
    try {
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(503);
      expect(health.headers.get('retry-after')).toBe('2');
      expect(await health.json()).toEqual({ status: 'seeding', packs: 0, versions: 0 });

      const search = await fetch(`${url}/v0/packs?q=weather`);
      expect(search.status).toBe(503);
      expect(search.headers.get('retry-after')).toBe('2');
      expect(await search.json()).toMatchObject({ error: { code: 'E_REGISTRY_SEEDING' } });
      expect((await fetch(`${url}/v0/packs/weather`)).status).toBe(503);

      // What `mcp pack search` prints comes from the registry client.
      await expect(createHttpRegistry({ url }).search({ q: 'weather' })).rejects.toThrow(
        /answered 503 .*still publishing its seed packs/,
      );

      const page = await fetch(`${url}/`);
      expect(page.status).toBe(503);
      const html = await page.text();
      expect(html).toContain('The gallery is still loading its packs');
      expect(html).not.toContain('No pack matches');
    } finally {
      release();
      registry = await starting;
    }
    try {
      expect(registry.seed.published).toHaveLength(2);
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', packs: 2, versions: 2 });
      const search = await fetch(`${url}/v0/packs?q=weather`);
      expect(search.status).toBe(200);
      expect(((await search.json()) as { packs: { name: string }[] }).packs).toMatchObject([
        { name: 'weather' },
      ]);
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain('still loading');
    } finally {
      await registry.close();
    }
  });
});
