import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkIntegrity } from '../integrity/integrity.ts';
import { describeScriptTools } from '../testing/describe-script-tools.ts';
import { createFolderRegistry } from './folder-registry.ts';
import { openRegistry, resolveRegistryLocation, DEFAULT_REGISTRY } from './open-registry.ts';

const dir = path.join(import.meta.dirname, 'fixtures', 'folder');

describe('a folder of pack sources as a registry', () => {
  const registry = createFolderRegistry({ dir, describeTools: describeScriptTools });

  it('finds packs by tag and words, with their tool counts', async () => {
    expect((await registry.search({ tags: ['MCPTOOLS'] })).packs).toEqual([
      {
        name: 'hello',
        version: '1.1.0',
        description: 'Says hello (1.1.0).',
        tags: ['MCPTools', 'greeting'],
        toolCount: 1,
      },
      {
        name: 'weather',
        version: '1.0.0',
        description: 'Tells the weather.',
        tags: ['MCPTools', 'weather'],
        toolCount: 1,
      },
    ]);
    expect((await registry.search({ q: 'greets' })).packs.map((p) => p.name)).toEqual(['hello']);
  });

  it('serves each pack at its manifest version, packed reproducibly', async () => {
    const pack = await registry.getPack('hello');
    expect(pack.latest).toBe('1.1.0');
    const doc = pack.versions['1.1.0']!;
    expect(doc.dist.tarball).toMatch(/^file:\/\/.*\/folder\/hello$/);
    const bytes = await registry.download(doc.dist);
    expect(checkIntegrity(bytes, doc.dist.integrity)).toBe(true);
    const again = await createFolderRegistry({ dir }).download(doc.dist);
    expect(again.equals(bytes)).toBe(true);
    await expect(registry.getVersion('hello', '1.0.0')).rejects.toThrow(
      /has no version 1\.0\.0 .*it holds 1\.1\.0/,
    );
  });

  it('skips folders that are not packs and reports broken ones', async () => {
    await expect(registry.getPack('broken')).rejects.toMatchObject({ code: 'E_PACK_NOT_FOUND' });
    expect((await registry.problems()).map((d) => d.message)).toEqual([
      'version: "nope" is not a valid semver version (e.g. 1.2.0)',
      'description: a pack needs a description.',
      'sources: a pack without sources has no tools.',
    ]);
  });
});

describe('choosing the registry', () => {
  it('takes --registry, then TOOLPACK_REGISTRY, then registry: in toolpack.yaml, then the default', () => {
    const cwd = '/work/here';
    expect(
      resolveRegistryLocation({ flag: 'http://r:1', env: { TOOLPACK_REGISTRY: 'http://e' }, cwd }),
    ).toEqual({ location: 'http://r:1', origin: 'flag' });
    expect(
      resolveRegistryLocation({
        env: { TOOLPACK_REGISTRY: './packs' },
        manifestRegistry: 'http://m',
        cwd,
      }),
    ).toEqual({
      location: path.resolve(cwd, 'packs'),
      origin: 'env',
    });
    expect(
      resolveRegistryLocation({
        env: {},
        manifestRegistry: 'registry/packs',
        cwd,
        projectDir: '/proj',
      }),
    ).toEqual({
      location: path.resolve('/proj', 'registry/packs'),
      origin: 'manifest',
    });
    expect(resolveRegistryLocation({ env: {}, cwd })).toEqual({
      location: DEFAULT_REGISTRY,
      origin: 'default',
    });
  });

  it('opens a folder or a URL, and refuses anything else', () => {
    expect(openRegistry({ location: dir }).kind).toBe('folder');
    expect(openRegistry({ location: 'https://packs.example' }).kind).toBe('http');
    expect(() => openRegistry({ location: path.join(dir, 'missing') })).toThrow(
      /neither an http\(s\) URL nor a folder/,
    );
    // The hint must not suggest a relative folder that only exists in a Toolpack clone.
    expect(() => openRegistry({ location: './no-such-folder/packs' })).toThrow(
      expect.objectContaining({ hint: expect.not.stringContaining('./registry/packs') }),
    );
  });
});
