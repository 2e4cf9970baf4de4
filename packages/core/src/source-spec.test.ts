import { describe, expect, it } from 'vitest';
import { sourceSpecSchema } from './source-spec.ts';

describe('sourceSpecSchema: preload:', () => {
  it('takes modules and scripts on a tools: source', () => {
    const parsed = sourceSpecSchema.safeParse({
      tools: '.bot/runtime/src/mcp/tools',
      preload: ['modules/Shop/Shop.psd1', 'Shop.psm1', 'bin/Shop.dll', 'helpers.ps1'],
    });
    expect(parsed.success).toBe(true);
  });

  it('refuses a file that is neither a module nor a script, at its index', () => {
    const parsed = sourceSpecSchema.safeParse({ tools: 'tools', preload: ['notes.txt'] });
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({
        path: ['preload', 0],
        message: '"notes.txt" is not a module (.psd1, .psm1, .dll) or a script (.ps1)',
      }),
    ]);
  });

  it('refuses preload: on a source that is not tool folders', () => {
    const parsed = sourceSpecSchema.safeParse({ scripts: 'scripts', preload: ['helpers.ps1'] });
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({
        path: ['preload'],
        message: expect.stringContaining('preload: belongs to a tools: source'),
      }),
    ]);
  });
});
