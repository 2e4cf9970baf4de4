import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS } from '@toolpack/core';
import { createPackCache } from '../cache/pack-cache.ts';
import { createHttpRegistry } from '../registry/http-registry.ts';
import { checkScriptTools } from '../testing/check-script-tools.ts';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { addPack } from './add-pack.ts';
import { auditPacks } from './audit-packs.ts';
import { createTempDirs } from './test-project.ts';

const packs = path.join(import.meta.dirname, 'fixtures', 'packs');
const temp = createTempDirs();
let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry({ packs });
});
afterAll(() => registry.close());
afterEach(() => temp.cleanup());

describe('auditPacks', () => {
  it('says what each pack may do, whether the installed one still asks for that, and its pins', async () => {
    const project = temp.make('audit');
    const common = {
      projectDir: project,
      registry: createHttpRegistry({ url: registry.url }),
      cache: createPackCache({ dir: temp.make('cache') }),
      checkTools: checkScriptTools([]),
      approve: () => true,
    };
    await addPack({ ...common, name: 'hello', range: '^1.0.0' });
    await addPack({ ...common, name: 'weather', alias: 'wx' });
    const weather = { ...LEAST_PERMISSIONS, env: ['WEATHER_API_KEY', 'WEATHER_UNITS'] };

    const clean = await auditPacks(project);
    expect(clean.diagnostics).toEqual([]);
    expect(clean.packs).toEqual([
      {
        alias: 'hello',
        name: 'hello',
        version: '1.1.0',
        permissions: LEAST_PERMISSIONS,
        interpreters: {},
        approved: true,
        installedPermissions: LEAST_PERMISSIONS,
        status: 'matches',
        beyond: [],
        tools: { hello_greet: expect.stringMatching(/^sha256-/) },
      },
      expect.objectContaining({ alias: 'wx', permissions: weather, status: 'matches' }),
    ]);

    // An installed toolpack.yaml edited to ask for more; a pack whose folder is gone; a
    // lock entry from before approval.
    const helloManifest = path.join(project, '.toolpack', 'packs', 'hello', 'toolpack.yaml');
    writeFileSync(
      helloManifest,
      `${readFileSync(helloManifest, 'utf8')}permissions: { subprocess: true }\n`,
    );
    rmSync(path.join(project, '.toolpack', 'packs', 'wx'), { recursive: true });
    const lockFile = path.join(project, 'toolpack.lock');
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    delete lock.packs.wx.permissions;
    delete lock.packs.wx.tools;
    writeFileSync(lockFile, JSON.stringify(lock));
    const drifted = await auditPacks(project);
    expect(drifted.packs.map((p) => [p.alias, p.status, p.approved, p.beyond])).toEqual([
      ['hello', 'asks-more', true, ['start other programs']],
      ['wx', 'not-installed', false, []],
    ]);
    expect(drifted.packs[1]?.permissions).toEqual(LEAST_PERMISSIONS);
    expect(drifted.packs[1]?.tools).toEqual({});
  });
});
