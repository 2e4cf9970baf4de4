import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTarball, packManifestText } from '@toolpack/packs/testing';
import type { PackDoc, VersionDoc } from '../documents.ts';
import {
  packFixture,
  removeTempDirs,
  startTestRegistryApp,
  type TestRegistryApp,
} from '../testing/registry-fixtures.ts';

// A registry of its own: the versions published here would change what the API tests
// expect of the latest weather.
let app: TestRegistryApp;
const getJson = async <T>(path: string) => (await fetch(`${app.url}${path}`)).json() as Promise<T>;

beforeAll(async () => {
  app = await startTestRegistryApp();
});
afterAll(async () => {
  await app?.close();
  await removeTempDirs();
});

describe('the permissions of a published version', () => {
  it('are served in the version and pack documents, normalised, with the env: names merged in', async () => {
    const tarball = await packFixture('weather', {
      append: [
        'permissions:',
        '  filesystem: { read: [project/docs], write: [temp] }',
        '  network: { access: any, hosts: [API.Weather.example, api.weather.example] }',
        '  subprocess: true',
        '',
      ].join('\n'),
    });
    expect((await app.publish(tarball, app.tokens.acme)).status).toBe(201);
    const doc = await getJson<VersionDoc>('/v0/packs/weather/versions/1.0.0');
    expect(doc.permissions).toEqual({
      filesystem: { read: ['project/docs', 'temp'], write: ['temp'] },
      network: { access: 'any', hosts: ['api.weather.example'] },
      env: ['WEATHER_API_KEY'],
      subprocess: true,
    });
    const pack = await getJson<PackDoc>('/v0/packs/weather');
    expect(pack.versions['1.0.0']?.permissions).toEqual(doc.permissions);
  });

  it('are the least, written out, for a pack that declares none', async () => {
    expect((await app.publish(await packFixture('notes'), app.tokens.acme)).status).toBe(201);
    const doc = await getJson<VersionDoc>('/v0/packs/acme/notes/versions/1.0.0');
    expect(doc.permissions).toEqual({
      filesystem: { read: [], write: [] },
      network: { access: 'none', hosts: [] },
      env: [],
      subprocess: false,
    });
  });

  it('refuse the publish when the manifest has a key they do not know, naming its line', async () => {
    const manifest = `${packManifestText('typo', '1.0.0')}permissions:\n  network: any\n  netwrok: none\n`;
    const tarball = buildTarball([
      { path: 'package/toolpack.yaml', data: manifest },
      {
        path: 'package/scripts/hello.sh',
        data: '#!/bin/sh\n# DESCRIPTION "Says hello."\necho hello\n',
      },
    ]);
    const response = await app.publish(tarball, app.tokens.acme);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { problems: { message: string; line?: number }[] };
    expect(body.problems).toEqual([
      expect.objectContaining({ message: expect.stringContaining('"netwrok"'), line: 9 }),
    ]);
    expect((await fetch(`${app.url}/v0/packs/typo`)).status).toBe(404);
  });
});
