import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCliPackage } from './find-cli-package.ts';

const cliDir = path.resolve(import.meta.dirname, '..');

describe('findCliPackage', () => {
  it('finds this package from the sources: its folder, version and the mcp bin it declares', async () => {
    const manifest = JSON.parse(readFileSync(path.join(cliDir, 'package.json'), 'utf8')) as {
      version: string;
    };
    const found = await findCliPackage();
    expect(found).toEqual({
      dir: cliDir,
      version: manifest.version,
      binPath: path.join(cliDir, 'bin', 'mcp.js'),
    });
    expect(existsSync(found.binPath)).toBe(true);
  });
});
