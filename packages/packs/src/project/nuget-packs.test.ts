import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackCache } from '../cache/pack-cache.ts';
import { computeIntegrity } from '../integrity/integrity.ts';
import { openNuGetFeed } from '../nuget/nuget-feed.ts';
import { createHttpRegistry } from '../registry/http-registry.ts';
import { buildModuleNupkg } from '../testing/build-nupkg.ts';
import { addPack } from './add-pack.ts';
import { installPacks } from './install-packs.ts';
import { updatePacks } from './update-packs.ts';
import { createTempDirs } from './test-project.ts';

const temp = createTempDirs();
afterEach(() => temp.cleanup());
const approveAll = () => true;
// A registry nothing answers at: a module from a feed must never be looked up there.
const nowhere = createHttpRegistry({ url: 'http://127.0.0.1:9', timeoutMs: 2000 });

async function setup() {
  const feedDir = temp.make('feed');
  const project = temp.make('project');
  const publish = async (
    id: string,
    version: string,
    dependencies?: { id: string; version?: string }[],
  ) => {
    const bytes = await buildModuleNupkg({
      id,
      version,
      ...(dependencies ? { dependencies } : {}),
    });
    writeFileSync(path.join(feedDir, `${id}.${version}.nupkg`), bytes);
    return bytes;
  };
  const openSource = (source: string) => {
    expect(source).toBe('modules');
    return openNuGetFeed({ location: feedDir });
  };
  return {
    feedDir,
    project,
    publish,
    openSource,
    cache: createPackCache({ dir: temp.make('cache') }),
  };
}

const lockOf = (project: string) =>
  JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')) as {
    packs: Record<
      string,
      {
        version: string;
        source?: string;
        modules?: { id: string; version: string; integrity: string }[];
      }
    >;
  };

describe('a PowerShell module from a NuGet feed as a pack', () => {
  it('is added with its required modules, updated and installed again from the feed it came from', async () => {
    const { feedDir, project, publish, openSource, cache } = await setup();
    const helpers = await publish('Helpers', '2.0.0');
    await publish('Helpers', '3.0.0');
    await publish('Shout', '1.0.0', [{ id: 'Helpers', version: '[2.0,3.0)' }]);

    const added = await addPack({
      projectDir: project,
      name: 'shout',
      registry: openNuGetFeed({ location: feedDir }),
      source: 'modules',
      cache,
      approve: approveAll,
      env: {},
    });
    expect(added).toMatchObject({ name: 'shout', version: '1.0.0', range: '^1.0.0' });
    expect(lockOf(project).packs.shout).toMatchObject({
      source: 'modules',
      modules: [{ id: 'Helpers', version: '2.0.0', integrity: computeIntegrity(helpers) }],
    });
    const installed = path.join(project, '.toolpack/packs/shout');
    expect(existsSync(path.join(installed, 'Shout/Shout.psd1'))).toBe(true);
    expect(existsSync(path.join(installed, 'Helpers/Helpers.psd1'))).toBe(true);

    // A new version on the feed, requiring the newer helpers: update asks the feed, not the registry.
    await publish('Shout', '1.1.0', [{ id: 'Helpers', version: '3.0' }]);
    const updated = await updatePacks({
      projectDir: project,
      registry: nowhere,
      openSource,
      cache,
      approve: approveAll,
    });
    expect(updated.updated.map((u) => `${u.alias} ${u.from} -> ${u.to}`)).toEqual([
      'shout 1.0.0 -> 1.1.0',
    ]);
    expect(lockOf(project).packs.shout).toMatchObject({
      version: '1.1.0',
      source: 'modules',
      modules: [{ id: 'Helpers', version: '3.0.0' }],
    });

    // A fresh clone, offline from the registry: the lock's feed and hashes are enough.
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    const report = await installPacks({
      projectDir: project,
      frozen: true,
      openSource,
      registry: () => nowhere,
      cache: createPackCache({ dir: temp.make('cache2') }),
    });
    expect(report.installed.map((p) => `${p.alias}@${p.version}`)).toEqual(['shout@1.1.0']);
    expect(readFileSync(path.join(installed, 'Helpers/Helpers.psd1'), 'utf8')).toMatch(
      /ModuleVersion = '3\.0\.0'/,
    );
  });

  it('refuses a required module missing from the feed, and a required package whose hash changed', async () => {
    const { feedDir, project, publish, openSource, cache } = await setup();
    await publish('Shout', '1.0.0', [{ id: 'Missing', version: '1.0' }]);
    await expect(
      addPack({
        projectDir: project,
        name: 'shout',
        registry: openNuGetFeed({ location: feedDir }),
        cache,
        approve: approveAll,
      }),
    ).rejects.toMatchObject({
      code: 'E_PACK_NOT_FOUND',
      message: expect.stringMatching(/no module Missing in >=1\.0\.0/),
    });
    expect(existsSync(path.join(project, 'toolpack.yaml'))).toBe(false);

    await publish('Missing', '1.0.0');
    await addPack({
      projectDir: project,
      name: 'shout',
      registry: openNuGetFeed({ location: feedDir }),
      source: 'modules',
      cache,
      approve: approveAll,
    });
    // The feed's file is replaced: the lock's hash no longer matches it.
    await publish('Missing', '1.0.0', [{ id: 'Other' }]);
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    await expect(
      installPacks({
        projectDir: project,
        frozen: true,
        openSource,
        cache: createPackCache({ dir: temp.make('cache3') }),
      }),
    ).rejects.toMatchObject({ code: 'E_INTEGRITY' });
  });
});
