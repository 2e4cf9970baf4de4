import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCliPackage } from './find-cli-package.ts';

const cliDir = path.resolve(import.meta.dirname, '..');

describe('findCliPackage', () => {
  it('finds this package from the sources: its folder, version, the mcp bin it declares and where bugs go', async () => {
    const manifest = JSON.parse(readFileSync(path.join(cliDir, 'package.json'), 'utf8')) as {
      version: string;
      bugs: { url: string };
    };
    const found = await findCliPackage();
    expect(found).toEqual({
      dir: cliDir,
      version: manifest.version,
      binPath: path.join(cliDir, 'bin', 'mcp.js'),
      bugsUrl: manifest.bugs.url,
    });
    expect(manifest.bugs.url).toMatch(/^https:\/\//);
    expect(existsSync(found.binPath)).toBe(true);
  });
});
