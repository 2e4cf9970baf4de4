import { readFileSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPackCache } from '../cache/pack-cache.ts';
import { createHttpRegistry } from '../registry/http-registry.ts';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { addPack } from './add-pack.ts';
import { installPacks } from './install-packs.ts';
import { createTempDirs, snapshotTree } from './test-project.ts';

/** Approves every pack: these tests are about installing, not about approval. */
const approveAll = () => true;

// Fails the rename that puts a chosen file in place: the last steps of a commit.
const failing = vi.hoisted(() => ({ target: undefined as string | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      if (failing.target !== undefined && String(to).endsWith(failing.target)) {
        throw Object.assign(new Error(`EIO: simulated failure renaming onto ${to}`), {
          code: 'EIO',
        });
      }
      return actual.rename(from, to);
    },
  };
});

const packs = path.join(import.meta.dirname, 'fixtures', 'packs');
const temp = createTempDirs();
let registry: TestRegistry;

beforeAll(async () => {
  registry = await startTestRegistry({ packs });
});
afterAll(() => registry.close());
afterEach(() => {
  failing.target = undefined;
  temp.cleanup();
});

describe('a commit that fails half-way is undone', () => {
  it.each(['toolpack.yaml', 'toolpack.lock'])(
    'add: failing to write %s restores the old pack, manifest and lock',
    async (file) => {
      const project = temp.make('atomic');
      const cache = createPackCache({ dir: temp.make('cache') });
      const client = createHttpRegistry({ url: registry.url });
      await addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        range: '1.0.0',
        registry: client,
        cache,
      });
      const before = snapshotTree(project);
      failing.target = file;
      await expect(
        addPack({
          approve: approveAll,
          projectDir: project,
          name: 'hello',
          range: '^1.1.0',
          registry: client,
          cache,
        }),
      ).rejects.toThrow(/simulated failure/);
      expect(snapshotTree(project)).toEqual(before);
      expect(
        readFileSync(path.join(project, '.toolpack', 'packs', 'hello', 'toolpack.yaml'), 'utf8'),
      ).toMatch(/version: 1\.0\.0/);
    },
  );

  it('add into an empty folder: a failure leaves it empty', async () => {
    const project = temp.make('atomic');
    failing.target = 'toolpack.lock';
    await expect(
      addPack({
        approve: approveAll,
        projectDir: project,
        name: 'weather',
        registry: createHttpRegistry({ url: registry.url }),
        cache: createPackCache({ dir: temp.make('cache') }),
      }),
    ).rejects.toThrow(/simulated failure/);
    expect(snapshotTree(project)).toEqual({});
  });

  it('install: a failure puts every pack folder back', async () => {
    const project = temp.make('atomic');
    const cache = createPackCache({ dir: temp.make('cache') });
    const client = createHttpRegistry({ url: registry.url });
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      range: '1.0.0',
      registry: client,
      cache,
    });
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'weather',
      registry: client,
      cache,
    });
    const manifest = path.join(project, 'toolpack.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace('hello: 1.0.0', 'hello: ^1.1.0'),
    );
    const before = snapshotTree(project);
    failing.target = 'toolpack.lock';
    await expect(
      installPacks({ projectDir: project, registry: () => client, cache }),
    ).rejects.toThrow(/simulated failure/);
    expect(snapshotTree(project)).toEqual(before);
  });
});
