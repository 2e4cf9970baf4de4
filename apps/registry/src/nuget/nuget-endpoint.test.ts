import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { ZipFile } from 'yazl';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import type { VersionDoc } from '@toolpack/packs';
import { startRegistry, type RunningRegistry } from '../start-registry.ts';
import { makeTempDir, packFixture, removeTempDirs } from '../testing/registry-fixtures.ts';
import { buildModuleNupkg } from './build-module-nupkg.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const clocksDir = path.join(fixtures, 'modules', 'Clocks');

let registry: RunningRegistry;
let token: string;
let strangerToken: string;
let nuget: string;

beforeAll(async () => {
  registry = await startRegistry({
    port: 0,
    dataDir: await makeTempDir(),
    seedDir: path.join(fixtures, 'packs'),
    rateLimits: false,
    // Small enough for a test to go over without megabytes of fixture.
    limits: { maxFileBytes: 64 * 1024 },
  });
  token = (await registry.createToken({ owner: 'acme' })).token;
  strangerToken = (await registry.createToken({ owner: 'bob' })).token;
  nuget = `${registry.url}/nuget/v3`;
  const weather = await fetch(`${registry.url}/v0/packs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
    body: new Uint8Array(await packFixture('weather')),
  });
  expect(weather.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await registry?.close();
  await removeTempDirs();
});

interface ZipEntryOptions {
  mode?: number;
}

/** A zip of `entries` made with yazl, NuGet's packaging files left out as `nuget pack` may. */
async function makeZip(entries: [string, string | Buffer, ZipEntryOptions?][]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, data, options] of entries)
    zip.addBuffer(
      Buffer.from(data),
      name,
      options?.mode === undefined ? {} : { mode: options.mode },
    );
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function nuspec(
  id: string,
  version: string,
  tags = 'PSModule MCPTools time PSFunction_Get-ClockTime',
): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://schemas.microsoft.com/packaging/2011/08/nuspec.xsd">
  <metadata>
    <id>${id}</id>
    <version>${version}</version>
    <authors>Toolpack tests</authors>
    <description>Tells the time &amp; nothing else.</description>
    <tags>${tags}</tags>
  </metadata>
</package>`;
}

async function clocksEntries(id = 'Clocks'): Promise<[string, string | Buffer][]> {
  return [
    [`${id}.psd1`, await readFile(path.join(clocksDir, 'Clocks.psd1'))],
    ['Clocks.psm1', await readFile(path.join(clocksDir, 'Clocks.psm1'))],
    ['[Content_Types].xml', '<Types/>'],
    ['_rels/.rels', '<Relationships/>'],
  ];
}

function push(body: Buffer, apiKey: string | undefined): Promise<Response> {
  const form = new FormData();
  form.append('package', new Blob([new Uint8Array(body)]), 'package.nupkg');
  return fetch(`${nuget}/package`, {
    method: 'PUT',
    headers: apiKey === undefined ? {} : { 'x-nuget-apikey': apiKey },
    body: form,
  });
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as T;
}

describe('the NuGet v3 service index and search', () => {
  it('names search, registrations, the flat container and publishing', async () => {
    const index = await getJson<{
      version: string;
      resources: { '@id': string; '@type': string }[];
    }>(`${nuget}/index.json`);
    expect(index.version).toBe('3.0.0');
    const byType = new Map(index.resources.map((r) => [r['@type'], r['@id']]));
    expect(byType.get('SearchQueryService/3.5.0')).toBe(`${nuget}/search`);
    expect(byType.get('RegistrationsBaseUrl/3.6.0')).toBe(`${nuget}/registration/`);
    expect(byType.get('PackageBaseAddress/3.0.0')).toBe(`${nuget}/flatcontainer/`);
    expect(byType.get('PackagePublish/2.0.0')).toBe(`${nuget}/package`);
  });

  it('finds packs by tag: a module under its module name, another pack with how to install it', async () => {
    const found = await getJson<{
      totalHits: number;
      data: { id: string; description: string; tags: string[] }[];
    }>(`${nuget}/search?q=tags:MCPTools&skip=0&take=100&prerelease=false&semVerLevel=2.0.0`);
    expect(found.data.map((entry) => entry.id).sort()).toEqual(['Greetings', 'weather']);
    const greetings = found.data.find((entry) => entry.id === 'Greetings');
    expect(greetings?.description).toBe(
      'Greets people in PowerShell - a module pack the NuGet endpoint serves as a .nupkg.',
    );
    const weather = await getJson<{ data: { id: string; description: string }[] }>(
      `${nuget}/search?q=weather`,
    );
    expect(weather.data[0]?.id).toBe('weather');
    expect(weather.data[0]?.description).toContain(
      'not a PowerShell module: install it with `mcp pack add weather`',
    );
    expect(weather.data[0]?.description).toMatch(
      /\nIt asks for files: read its own folder; write nothing; network: /,
    );
  });
});

describe('module packs as .nupkg', () => {
  it('serves the same bytes on every download, holding a manifest with the pack facts', async () => {
    const url = `${nuget}/flatcontainer/greetings/1.0.0/greetings.1.0.0.nupkg`;
    const first = Buffer.from(await (await fetch(url)).arrayBuffer());
    const second = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(first.equals(second)).toBe(true);
    const entries = await readZip(first);
    expect([...entries.keys()]).toEqual([
      'Greetings.nuspec',
      'Greetings.psd1',
      'pack/Greetings/Greetings.psd1',
      'pack/Greetings/Greetings.psm1',
      'pack/toolpack.yaml',
    ]);
    const manifest = entries.get('Greetings.psd1') ?? '';
    expect(manifest).toContain("ModuleVersion = '1.0.0'");
    expect(manifest).toContain("Tags = @('PSModule', 'MCPTools', 'powershell', 'greetings')");
    expect(manifest).toContain("NestedModules = @('pack/Greetings/Greetings.psd1')");
    expect(entries.get('Greetings.nuspec')).toContain(
      '<tags>PSModule MCPTools powershell greetings</tags>',
    );
    const versions = await getJson<{ versions: string[] }>(
      `${nuget}/flatcontainer/greetings/index.json`,
    );
    expect(versions.versions).toEqual(['1.0.0']);
  });

  it('gives the same bytes in every time zone', async () => {
    const input = {
      id: 'Greetings',
      module: { kind: 'module' as const, path: 'Greetings/Greetings.psd1' },
      doc: {
        name: 'greetings',
        version: '1.0.0',
        description: 'd',
        tags: ['MCPTools'],
      } as VersionDoc,
      files: [{ path: 'toolpack.yaml', data: Buffer.from('name: greetings\n') }],
      owner: 'acme',
      packPageUrl: 'https://gallery.example/packs/greetings',
    };
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const utc = await buildModuleNupkg(input);
      process.env.TZ = 'Pacific/Kiritimati';
      const plus14 = await buildModuleNupkg(input);
      expect(plus14.equals(utc)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} quotes a description so PowerShell reads it back exactly, whatever quotes it holds`,
    async () => {
      // Each of PowerShell's five single quotes would end the string and run the rest.
      const description = "It's \u2018a\u2019 \u201Atest\u201B'; Remove-Item -Recurse ~ #";
      const bytes = await buildModuleNupkg({
        id: 'Quotes',
        module: { kind: 'module', path: 'Quotes.psm1' },
        doc: {
          name: 'quotes',
          version: '1.0.0-beta.2',
          description,
          tags: ['MCPTools'],
        } as VersionDoc,
        files: [],
        owner: "o'wner",
        packPageUrl: 'https://gallery.example/packs/quotes',
      });
      const dir = await makeTempDir();
      const file = path.join(dir, 'Quotes.psd1');
      await writeFile(file, (await readZip(bytes)).get('Quotes.psd1') ?? '');
      const read = spawnSync(
        'pwsh',
        [
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-Command',
          `Import-PowerShellDataFile -LiteralPath '${file}' | ConvertTo-Json -Depth 5 -Compress`,
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(read.status, read.stderr).toBe(0);
      const data = JSON.parse(read.stdout) as {
        Description: string;
        Author: string;
        ModuleVersion: string;
        PrivateData: { PSData: { Prerelease: string } };
      };
      expect(data.Description).toBe(description);
      expect(data.Author).toBe("o'wner");
      expect(data.ModuleVersion).toBe('1.0.0');
      expect(data.PrivateData.PSData.Prerelease).toBe('beta2');
    },
  );

  it('has no .nupkg for a pack that is not a module, and says how to install it', async () => {
    const response = await fetch(`${nuget}/flatcontainer/weather/1.0.0/weather.1.0.0.nupkg`);
    expect(response.status).toBe(404);
    expect(response.statusText).toBe(
      'weather is not a PowerShell module; install it with mcp pack add weather',
    );
    const body = (await response.json()) as { error: { code: string; hint: string } };
    expect(body.error).toMatchObject({
      code: 'E_NOT_A_MODULE',
      hint: 'Install it with mcp pack add weather.',
    });
  });

  it('lists every version in the registration, with its metadata and content URL', async () => {
    const registration = await getJson<{
      items: {
        lower: string;
        upper: string;
        items: { catalogEntry: Record<string, unknown>; packageContent: string }[];
      }[];
    }>(`${nuget}/registration/greetings/index.json`);
    const leaf = registration.items[0]?.items[0];
    expect(leaf?.catalogEntry).toMatchObject({
      id: 'Greetings',
      version: '1.0.0',
      listed: true,
      projectUrl: `${registry.url}/packs/greetings`,
    });
    expect(leaf?.packageContent).toBe(
      `${nuget}/flatcontainer/greetings/1.0.0/greetings.1.0.0.nupkg`,
    );
    expect((await fetch(`${nuget}/registration/nothing-here/index.json`)).status).toBe(404);
  });
});

describe('publishing a module .nupkg', () => {
  it('publishes it as a pack through the same checks, once, for its owner only', async () => {
    const body = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '2.1.0')],
      ...(await clocksEntries()),
    ]);
    expect((await push(body, undefined)).status).toBe(401);
    const created = await push(body, token);
    expect(created.status, await created.clone().text()).toBe(201);
    const doc = await getJson<VersionDoc>(`${registry.url}/v0/packs/clocks/versions/2.1.0`);
    expect(doc).toMatchObject({
      description: 'Tells the time & nothing else.',
      tags: ['MCPTools', 'time'],
      permissions: {},
    });
    expect(doc.tools.map((tool) => tool.name)).toEqual(['Get_ClockTime']);
    expect((await push(body, token)).status).toBe(409);
    // NuGet's short forms are the pack's versions: 2.1 is 2.1.0, so this is the same version.
    const short = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '2.1')],
      ...(await clocksEntries()),
    ]);
    expect((await push(short, token)).status).toBe(409);
    const padded = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '2.3.0.0')],
      ...(await clocksEntries()),
    ]);
    expect((await push(padded, token)).status).toBe(201);
    expect(
      (await getJson<VersionDoc>(`${registry.url}/v0/packs/clocks/versions/2.3.0`)).version,
    ).toBe('2.3.0');
    const stranger = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '2.2.0')],
      ...(await clocksEntries()),
    ]);
    const denied = await push(stranger, strangerToken);
    expect(denied.status).toBe(403);
    expect(denied.statusText).toMatch(/clocks belongs to acme/);
  });

  it("keeps a published module's RequiredModules: its .nupkg from the gallery names them as dependencies", async () => {
    const withDependencies = nuspec('WorldClocks', '1.0.0').replace(
      '  </metadata>',
      '    <dependencies>\n      <dependency id="TimeHelpers" version="[1.0.0, )" />\n      <dependency id="Zones" />\n    </dependencies>\n  </metadata>',
    );
    const created = await push(
      await makeZip([
        ['WorldClocks.nuspec', withDependencies],
        ...(await clocksEntries('WorldClocks')),
      ]),
      token,
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const served = await readZip(
      Buffer.from(
        await (
          await fetch(`${nuget}/flatcontainer/worldclocks/1.0.0/worldclocks.1.0.0.nupkg`)
        ).arrayBuffer(),
      ),
    );
    expect(served.get('WorldClocks.nuspec')).toContain(
      '    <dependencies>\n      <dependency id="TimeHelpers" version="[1.0.0, )" />\n      <dependency id="Zones" />\n    </dependencies>',
    );
    // The pack keeps them beside its module; a module that requires none keeps nothing.
    expect(served.has('pack/WorldClocks/WorldClocks.nuspec')).toBe(true);
    const clocks = await readZip(
      Buffer.from(
        await (await fetch(`${nuget}/flatcontainer/clocks/2.1.0/clocks.2.1.0.nupkg`)).arrayBuffer(),
      ),
    );
    expect(clocks.get('Clocks.nuspec')).not.toContain('<dependencies>');
    expect([...clocks.keys()].filter((name) => name.endsWith('.nuspec'))).toEqual([
      'Clocks.nuspec',
    ]);

    // What PSResourceGet reads to install them with the module: v3's dependencyGroups, v2's Dependencies.
    const leaf = await getJson<{ catalogEntry: { dependencyGroups: unknown } }>(
      `${nuget}/registration/worldclocks/1.0.0.json`,
    );
    expect(leaf.catalogEntry.dependencyGroups).toEqual([
      {
        '@type': 'PackageDependencyGroup',
        dependencies: [
          { '@type': 'PackageDependency', id: 'TimeHelpers', range: '[1.0.0, )' },
          { '@type': 'PackageDependency', id: 'Zones' },
        ],
      },
    ]);
    const v2 = await (
      await fetch(`${registry.url}/nuget/v2/FindPackagesById()?id='WorldClocks'`)
    ).text();
    expect(v2).toContain('<d:Dependencies>TimeHelpers:[1.0.0, ):|Zones::</d:Dependencies>');
    const clocksLeaf = await getJson<{ catalogEntry: { dependencyGroups: unknown } }>(
      `${nuget}/registration/clocks/2.1.0.json`,
    );
    expect(clocksLeaf.catalogEntry.dependencyGroups).toEqual([]);
  });

  it("publishes owner.name only with that owner's token", async () => {
    const scoped = await makeZip([
      ['bob.clocks.nuspec', nuspec('bob.clocks', '1.0.0')],
      ...(await clocksEntries('bob.clocks')),
    ]);
    const denied = await push(scoped, token);
    expect(denied.status).toBe(403);
    expect(denied.statusText).toMatch(/bob\/clocks belongs to bob/);
    expect((await push(scoped, strangerToken)).status).toBe(201);
    expect(
      (await getJson<VersionDoc>(`${registry.url}/v0/packs/bob%2Fclocks/versions/1.0.0`)).name,
    ).toBe('bob/clocks');
  });

  it('refuses a package that is not a module, or whose id cannot be a pack name', async () => {
    const script = await makeZip([
      ['Tool.nuspec', nuspec('Tool', '1.0.0')],
      ['Tool.ps1', 'Write-Output 1'],
    ]);
    const refused = await push(script, token);
    expect(refused.status).toBe(422);
    expect(refused.statusText).toMatch(/no Tool\.psd1 at its root/);
    const fourParts = await makeZip([
      ['Tool.nuspec', nuspec('Clocks', '1.0.0.1')],
      ...(await clocksEntries()),
    ]);
    expect((await push(fourParts, token)).statusText).toMatch(
      /"1\.0\.0\.1" cannot be a pack version/,
    );
    const dotted = await makeZip([
      ['A.B.C.nuspec', nuspec('A.B.C', '1.0.0')],
      ...(await clocksEntries('A.B.C')),
    ]);
    expect((await push(dotted, token)).statusText).toMatch(/cannot name a pack/);
  });
});

describe('hostile .nupkg uploads', () => {
  /** A zip whose entry names were rewritten in place after yazl checked them. */
  async function makeRawZip(
    entries: [string, string | Buffer][],
    rename: [string, string],
  ): Promise<Buffer> {
    const bytes = await makeZip(entries);
    const [from, to] = rename.map((name) => Buffer.from(name)) as [Buffer, Buffer];
    expect(from.length).toBe(to.length);
    let at = bytes.indexOf(from);
    while (at !== -1) {
      to.copy(bytes, at);
      at = bytes.indexOf(from, at + 1);
    }
    return bytes;
  }

  it('refuses an entry that climbs out of the package, which a naive unzip would write outside', async () => {
    const body = await makeRawZip(
      [
        ['Clocks.nuspec', nuspec('Clocks', '3.0.0')],
        ...(await clocksEntries()).slice(0, 2),
        ['zz/evil.ps1', 'x'],
      ],
      ['zz/evil.ps1', '../evil.ps1'],
    );
    // Without the check: the raw name, joined to an unpacking folder, lands beside it.
    const rawNames = await readRawNames(body);
    expect(rawNames).toContain('../evil.ps1');
    expect(path.join('/srv/unpack', '../evil.ps1')).toBe('/srv/evil.ps1');
    const refused = await push(body, token);
    expect(refused.status).toBe(422);
    expect(
      ((await refused.json()) as { problems: { message: string }[] }).problems[0]?.message,
    ).toMatch(/"\.\.\/evil\.ps1" climbs out of the pack/);
  });

  it('refuses a link entry, which an unzip keeping modes would make a symlink', async () => {
    const body = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '3.0.1')],
      ...(await clocksEntries()).slice(0, 2),
      ['secret.txt', '/etc/passwd', { mode: 0o120777 }],
    ]);
    expect(await readRawModes(body)).toContain(0o120777);
    const refused = await push(body, token);
    expect(refused.status).toBe(422);
    expect(refused.statusText).toBe(
      'secret.txt is a symbolic link; packs hold only files and folders.',
    );
  });

  it('refuses an entry over the file size cap before unpacking it', async () => {
    const body = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '3.0.2')],
      ...(await clocksEntries()).slice(0, 2),
      ['big.txt', Buffer.alloc(64 * 1024 + 1, 'a')],
    ]);
    const refused = await push(body, token);
    expect(refused.status).toBe(422);
    expect(refused.statusText).toMatch(/big\.txt is 64\.0 KB; one file may be at most 64\.0 KB/);
    expect((await fetch(`${registry.url}/v0/packs/clocks/versions/3.0.2`)).status).toBe(404);
  });

  it('refuses an entry that unpacks to more than its directory says, which would pass the size cap', async () => {
    const big = Buffer.alloc(256 * 1024, 0);
    const body = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '3.0.4')],
      ...(await clocksEntries()).slice(0, 2),
      ['lie.txt', big],
    ]);
    setDeclaredSize(body, 'lie.txt', 100);
    // Without checking the real size: the entry passes the 64 KB cap on its declared 100 bytes
    // and unpacks to 256 KB.
    const unchecked = await readEntryUnchecked(body, 'lie.txt');
    expect(unchecked.declared).toBe(100);
    expect(unchecked.actual).toBe(big.length);
    const refused = await push(body, token);
    expect(refused.status).toBe(422);
    expect(refused.statusText).toMatch(/lie\.txt cannot be read: too many bytes in the stream/);
  });

  it('refuses names that would overwrite each other, which fail the unpacking without the check', async () => {
    const entries = (await clocksEntries()).slice(0, 2);
    const twice = await makeRawZip(
      [['Clocks.nuspec', nuspec('Clocks', '3.0.5')], ...entries, ['Clocks.psm2', 'x']],
      ['Clocks.psm2', 'Clocks.psm1'],
    );
    // Unchecked, the second Clocks.psm1 meets the first on disk: writing it fails.
    const dir = await makeTempDir();
    await writeFile(path.join(dir, 'Clocks.psm1'), 'first', { flag: 'wx' });
    await expect(
      writeFile(path.join(dir, 'Clocks.psm1'), 'second', { flag: 'wx' }),
    ).rejects.toThrow(/EEXIST/);
    const refused = await push(twice, token);
    expect(refused.status).toBe(422);
    expect(refused.statusText).toBe('Clocks.psm1 appears twice.');

    const folded = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '3.0.6')],
      ...entries,
      ['Notes.txt', 'a'],
      ['notes.TXT', 'b'],
    ]);
    expect((await push(folded, token)).statusText).toBe(
      'notes.TXT and Notes.txt differ only in case; they would overwrite each other on macOS and Windows.',
    );
    const fileAndFolder = await makeZip([
      ['Clocks.nuspec', nuspec('Clocks', '3.0.7')],
      ...entries,
      ['lib', 'a file'],
      ['lib/inner.ps1', 'x'],
    ]);
    expect((await push(fileAndFolder, token)).statusText).toBe(
      'lib is a file and also the folder of lib/inner.ps1.',
    );
  });

  it('refuses a .nuspec with a DOCTYPE (entity expansion)', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE package [<!ENTITY a "aaaaaaaaaa">]>${nuspec('Clocks', '3.0.3').replace(/^<\?xml[^>]*>/, '')}`;
    const refused = await push(
      await makeZip([['Clocks.nuspec', bomb], ...(await clocksEntries())]),
      token,
    );
    expect(refused.status).toBe(422);
    expect(refused.statusText).toMatch(/DOCTYPE/);
  });
});

describe('the gallery page', () => {
  it('shows the Install-PSResource line beside mcp pack add for a module pack only', async () => {
    const greetings = await (await fetch(`${registry.url}/packs/greetings`)).text();
    expect(greetings).toContain('<code id="install-command">mcp pack add greetings</code>');
    expect(greetings).toContain(
      '<code id="install-psresource">Install-PSResource -Name Greetings -Repository Toolpack</code>',
    );
    expect(greetings).toContain(
      `Register-PSResourceRepository -Name Toolpack -Uri ${registry.url}/nuget/v2 -Trusted`,
    );
    const pinned = await (await fetch(`${registry.url}/packs/greetings?version=1.0.0`)).text();
    expect(pinned).toContain(
      'Install-PSResource -Name Greetings -Repository Toolpack -Version 1.0.0',
    );
    const weather = await (await fetch(`${registry.url}/packs/weather`)).text();
    expect(weather).not.toContain('Install-PSResource');
  });
});

async function readZip(bytes: Buffer): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  const zip = await openZip(bytes, {});
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

/** Entry names as stored, without yauzl's checks (what a careless unzip would use). */
async function readRawNames(bytes: Buffer): Promise<string[]> {
  return (await listRawEntries(bytes)).map((entry) =>
    (entry.fileName as unknown as Buffer).toString('utf8'),
  );
}

async function readRawModes(bytes: Buffer): Promise<number[]> {
  return (await listRawEntries(bytes)).map((entry) => entry.externalFileAttributes >>> 16);
}

async function listRawEntries(bytes: Buffer): Promise<yauzl.Entry[]> {
  const zip = await openZip(bytes, { decodeStrings: false });
  const entries: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

function openZip(bytes: Buffer, options: yauzl.Options): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true, ...options }, (error, zip) =>
      error ? reject(error) : resolve(zip),
    ),
  );
}

/** Rewrites the uncompressed size the central directory gives `name`. */
function setDeclaredSize(zip: Buffer, name: string, size: number): void {
  for (
    let at = zip.indexOf(CENTRAL_SIGNATURE);
    at !== -1;
    at = zip.indexOf(CENTRAL_SIGNATURE, at + 4)
  ) {
    const nameLength = zip.readUInt16LE(at + 28);
    if (zip.subarray(at + 46, at + 46 + nameLength).toString('utf8') === name) {
      zip.writeUInt32LE(size, at + 24);
      return;
    }
  }
  throw new Error(`no central directory entry for ${name}`);
}
const CENTRAL_SIGNATURE = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

/** The entry as an unzip that trusts the directory reads it: its declared and its real size. */
async function readEntryUnchecked(
  bytes: Buffer,
  name: string,
): Promise<{ declared: number; actual: number }> {
  const zip = await openZip(bytes, { validateEntrySizes: false });
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName !== name) return zip.readEntry();
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        let actual = 0;
        stream.on('data', (chunk: Buffer) => (actual += chunk.length));
        stream.on('end', () => resolve({ declared: entry.uncompressedSize, actual }));
      });
    });
    zip.on('error', reject);
    zip.readEntry();
  });
}
