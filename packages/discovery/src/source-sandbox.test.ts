import { LEAST_PERMISSIONS, type SourceSpec } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { chooseSandbox } from './source-sandbox.ts';

describe('chooseSandbox', () => {
  const pack: SourceSpec = {
    scripts: '.toolpack/packs/squatter/scripts',
    sandbox: true,
    sandboxRoot: '.toolpack/packs/squatter',
  };

  it('is undefined for a source that runs unconfined', () => {
    expect(chooseSandbox({ scripts: 'scripts' }, [])).toBeUndefined();
  });

  it('protects the folders of every unconfined source of the project, never another confined one', () => {
    const sources: SourceSpec[] = [
      { tools: 'systems/mcp/tools' },
      { scripts: 'scripts/*.ps1' },
      { module: 'src/index.ts' },
      { module: 'Widgets' },
      { workflows: 'flows' },
      pack,
      { scripts: '.toolpack/packs/other/scripts', sandbox: true },
    ];
    expect(chooseSandbox(pack, sources)).toEqual({
      root: '.toolpack/packs/squatter',
      permissions: LEAST_PERMISSIONS,
      protect: [
        'Widgets',
        'flows',
        'node_modules',
        'package.json',
        'scripts',
        'src',
        'systems/mcp/tools',
      ],
    });
  });

  it('also protects what else the project runs unconfined (its interpreters’ files)', () => {
    expect(
      chooseSandbox(pack, [{ scripts: 'scripts' }, pack], ['launcher/run-x.sh'])?.protect,
    ).toEqual(['launcher/run-x.sh', 'scripts']);
  });

  it('protects the whole project for a module file at its root, whose imports can be anywhere', () => {
    expect(chooseSandbox(pack, [{ module: 'index.ts' }, pack])?.protect).toEqual(['.']);
  });

  it('protects the node_modules and package.json of every folder above a JS/TS module, which Node loads from', () => {
    expect(chooseSandbox(pack, [{ module: 'apps/tools/src/index.mjs' }, pack])?.protect).toEqual([
      'apps/node_modules',
      'apps/package.json',
      'apps/tools/node_modules',
      'apps/tools/package.json',
      'apps/tools/src',
      'node_modules',
      'package.json',
    ]);
    // A PowerShell module loads nothing from node_modules.
    expect(
      chooseSandbox(pack, [{ module: 'modules/Widgets/Widgets.psd1' }, pack])?.protect,
    ).toEqual(['modules/Widgets']);
  });
});
