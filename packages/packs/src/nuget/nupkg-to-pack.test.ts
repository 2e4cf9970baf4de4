import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../manifest/parse-manifest.ts';
import { buildModuleNupkg, buildZip, nuspecText } from '../testing/build-nupkg.ts';
import { readNupkgAsPack } from './nupkg-to-pack.ts';
import { inspectNupkg } from './read-nupkg.ts';

describe('readNupkgAsPack', () => {
  it('makes the module of a real Publish-PSResource package a pack: its folder, and a toolpack.yaml from its .nuspec', async () => {
    const bytes = await readFile(path.join(import.meta.dirname, 'fixtures/EchoTools.1.2.0.nupkg'));
    const pack = await readNupkgAsPack(bytes, { name: 'echotools', version: '1.2.0' });
    expect(pack.files.map((f) => f.path)).toEqual([
      'toolpack.yaml',
      'EchoTools/EchoTools.psm1',
      'EchoTools/EchoTools.psd1',
    ]);
    const manifest = parseManifest(pack.files[0]!.data.toString(), {
      path: 'toolpack.yaml',
      kind: 'pack',
    }).manifest;
    expect(manifest).toMatchObject({
      name: 'echotools',
      version: '1.2.0',
      description: 'Echo tools for MCP.',
      tags: ['PSModule', 'MCPTools', 'Echo'],
      sources: [{ module: 'EchoTools/EchoTools.psd1' }],
      // A module declares nothing, so it asks for nothing.
      permissions: { network: { access: 'none' }, subprocess: false, env: [] },
    });
    // The same bytes give the same pack, so an installed one can be checked against its package.
    const again = await readNupkgAsPack(bytes, { name: 'echotools', version: '1.2.0' });
    expect(again.files).toEqual(pack.files);
  });

  it("takes the pack a Toolpack gallery's .nupkg wraps (under pack/) as it is, where the module alone gives no tools", async () => {
    // Downloaded from this repository's gallery (apps/registry, `/nuget/v3/flatcontainer/`)
    // serving the official sysinfo pack (registry/packs/sysinfo); see fixtures/README.md.
    const bytes = await readFile(path.join(import.meta.dirname, 'fixtures/sysinfo.1.1.1.nupkg'));
    const inner = await inspectNupkg(bytes);
    // Without this rule the wrapper module is the pack: a psd1 whose functions no file defines.
    expect(inner.files?.map((f) => f.path)).toContain('sysinfo.psm1');
    const pack = await readNupkgAsPack(bytes, { name: 'sysinfo', version: '1.1.1' });
    expect(pack.files.map((f) => f.path).sort()).toEqual([
      'README.md',
      'scripts/Get-CpuInfo.ps1',
      'scripts/Get-DiskInfo.ps1',
      'scripts/Get-MemoryInfo.ps1',
      'scripts/Get-OsInfo.ps1',
      'toolpack.yaml',
    ]);
    const manifest = parseManifest(
      pack.files.find((f) => f.path === 'toolpack.yaml')!.data.toString(),
      { path: 'toolpack.yaml', kind: 'pack' },
    ).manifest;
    // The pack's own permissions, not the least a bare module asks for.
    expect(manifest).toMatchObject({
      name: 'sysinfo',
      version: '1.1.1',
      sources: [{ scripts: 'scripts' }],
      permissions: { subprocess: true },
    });
    await expect(
      readNupkgAsPack(bytes, { name: 'sysinfo', version: '1.0.9' }),
    ).rejects.toMatchObject({ code: 'E_TARBALL_MISMATCH' });
  });

  it.each([
    [
      'another id',
      { id: 'Impostor' },
      /holds Impostor 1\.0\.0 by its \.nuspec, not trusted@1\.0\.0/,
    ],
    [
      'another version',
      { version: '9.9.9' },
      /holds Trusted 9\.9\.9 by its \.nuspec, not trusted@1\.0\.0/,
    ],
  ])('refuses a .nuspec that names %s than the feed listed', async (_, nuspec, message) => {
    const bytes = await buildModuleNupkg({ id: 'Trusted', version: '1.0.0', nuspec });
    // The package is well formed: only this check stands between it and the install.
    expect((await inspectNupkg(bytes)).problems).toEqual([]);
    await expect(
      readNupkgAsPack(bytes, { name: 'trusted', version: '1.0.0' }),
    ).rejects.toMatchObject({
      code: 'E_TARBALL_MISMATCH',
      message: expect.stringMatching(message),
    });
  });

  it("refuses a module manifest whose ModuleVersion is not the .nuspec's version", async () => {
    const honest = await buildModuleNupkg({ id: 'Trusted', version: '1.0.0' });
    await expect(
      readNupkgAsPack(honest, { name: 'trusted', version: '1.0.0' }),
    ).resolves.toBeDefined();
    // The .nuspec says 1.0.0, as the feed listed; the module itself is another version.
    const lying = await buildModuleNupkg({
      id: 'Trusted',
      version: '6.6.6',
      nuspec: { version: '1.0.0' },
    });
    expect((await inspectNupkg(lying)).problems).toEqual([]);
    await expect(
      readNupkgAsPack(lying, { name: 'trusted', version: '1.0.0' }),
    ).rejects.toMatchObject({
      code: 'E_TARBALL_MISMATCH',
      message: expect.stringMatching(/Trusted\.psd1 says ModuleVersion 6\.6\.6/),
    });
  });

  it('reads a prerelease as Publish-PSResource writes it: the label in the .nuspec, not in ModuleVersion', async () => {
    // ModuleVersion = '1.2.0' with PSData.Prerelease = 'preview1' is the package 1.2.0-preview1.
    const preview = await buildModuleNupkg({
      id: 'Trusted',
      version: '1.2.0',
      nuspec: { version: '1.2.0-preview1' },
    });
    await expect(
      readNupkgAsPack(preview, { name: 'trusted', version: '1.2.0-preview1' }),
    ).resolves.toBeDefined();
    const other = await buildModuleNupkg({
      id: 'Trusted',
      version: '1.3.0',
      nuspec: { version: '1.2.0-preview1' },
    });
    await expect(
      readNupkgAsPack(other, { name: 'trusted', version: '1.2.0-preview1' }),
    ).rejects.toMatchObject({ code: 'E_TARBALL_MISMATCH' });
  });

  it('refuses a package that is not a PowerShell module', async () => {
    const library = await buildZip([
      { path: 'Lib.nuspec', data: nuspecText({ id: 'Lib', version: '1.0.0' }) },
      { path: 'lib/net8.0/Lib.dll', data: 'MZ' },
    ]);
    await expect(readNupkgAsPack(library, { name: 'lib', version: '1.0.0' })).rejects.toMatchObject(
      {
        code: 'E_NUPKG_NOT_MODULE',
      },
    );
  });

  it('refuses a hostile package with every problem, as a tarball is', async () => {
    const bytes = await buildModuleNupkg({
      id: 'Hostile',
      version: '1.0.0',
      extra: [
        { path: '../evil.ps1', data: 'x' },
        { path: 'link.ps1', data: '/etc/passwd', mode: 0o120777 },
      ],
    });
    await expect(
      readNupkgAsPack(bytes, { name: 'hostile', version: '1.0.0' }),
    ).rejects.toMatchObject({
      code: 'E_TARBALL_UNSAFE',
      message: expect.stringMatching(/climbs out of the pack[\s\S]*is a symbolic link/),
    });
  });
});
