import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SourceSpec } from '@toolpack/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverTools } from './discover-tools.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-missing-source-'));
  mkdirSync(path.join(dir, 'scripts'));
  mkdirSync(path.join(dir, 'tools', 'greet'), { recursive: true });
  writeFileSync(path.join(dir, 'widgets.psd1'), "@{ RootModule = 'widgets.psm1' }\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The error discovery throws for `sources`, as the CLI prints its parts. */
async function discoverFailure(sources: SourceSpec[]) {
  const error = await discoverTools({ cwd: dir, sources, cache: false, builtins: false }).then(
    () => undefined,
    (thrown: { code?: string; message?: string; hint?: string; location?: string }) => thrown,
  );
  return {
    code: error?.code,
    location: error?.location,
    message: error?.message,
    hint: error?.hint,
  };
}

const manifest = () => path.join(dir, 'toolpack.yaml');

describe('discoverTools: a source that does not exist', () => {
  it('is reported at its toolpack.yaml line with the nearest existing folder', async () => {
    expect(
      await discoverFailure([{ scripts: 'scrpts', origin: { path: manifest(), line: 4 } }]),
    ).toEqual({
      code: 'E_SOURCE_MISSING',
      location: `${manifest()}:4`,
      message: 'Script root scrpts does not exist.',
      hint: 'Did you mean scripts (the nearest existing folder)? Point --script-root (or `scripts:` in toolpack.yaml) at a folder of scripts.',
    });
  });

  it('suggests within a sub-folder, a module file by its name, and works for a flag too', async () => {
    // A flag has no line: the error keeps the path discovery looked in.
    expect(await discoverFailure([{ tools: 'tools/gret' }])).toMatchObject({
      location: path.join(dir, 'tools', 'gret'),
      hint: expect.stringMatching(/^Did you mean tools\/greet \(the nearest existing folder\)\? /),
    });
    expect((await discoverFailure([{ module: 'widget.psd1' }])).hint).toMatch(
      /^Did you mean widgets\.psd1 \(the nearest existing file\)\? /,
    );
  });

  it('keeps the error as it was when nothing is close and no line is known', async () => {
    expect(await discoverFailure([{ workflows: 'flows' }])).toMatchObject({
      location: path.join(dir, 'flows'),
      hint: expect.not.stringMatching(/Did you mean/),
    });
    expect(
      await discoverFailure([{ workflows: 'flows', origin: { path: manifest(), line: 2 } }]),
    ).toMatchObject({
      location: `${manifest()}:2`,
      hint: expect.not.stringMatching(/Did you mean/),
    });
  });
});
