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
      protect: ['Widgets', 'flows', 'scripts', 'src', 'systems/mcp/tools'],
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
});
