import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LANGS_BY_KIND, TOOL_KINDS, checkCombination, planTool } from './plan-tool.ts';
import { deriveToolNames } from './tool-names.ts';

describe('checkCombination', () => {
  it('accepts every documented combination', () => {
    for (const kind of TOOL_KINDS) {
      const langs = LANGS_BY_KIND[kind];
      if (langs.length === 0)
        expect(checkCombination(kind, undefined)).toEqual({ kind, lang: undefined });
      for (const lang of langs) expect(checkCombination(kind, lang)).toEqual({ kind, lang });
    }
  });

  it('refuses the others with E_USAGE and the list of combinations', () => {
    for (const [kind, lang] of [
      ['module', 'py'],
      ['module', 'sh'],
      ['basic', 'ps1'],
      ['folder', undefined],
      ['widget', 'js'],
      [undefined, 'js'],
      ['script', 'rb'],
    ] as const) {
      expect(() => checkCombination(kind, lang)).toThrow(
        expect.objectContaining({
          code: 'E_USAGE',
          hint: expect.stringContaining('--kind module --lang ps1|js|ts'),
        }),
      );
    }
  });
});

describe('planTool', () => {
  const names = deriveToolNames('send-notification');
  const dir = path.resolve('/work/tools');
  const plan = (
    kind: (typeof TOOL_KINDS)[number],
    lang: 'ps1' | 'sh' | 'py' | 'js' | 'ts' | undefined,
  ) =>
    planTool({
      names,
      kind,
      lang,
      dir,
      description: 'Sends a notification.',
      runTestWith: () => 'mcp test',
    });
  const files = (p: ReturnType<typeof plan>) =>
    p.files.map((f) => path.relative(dir, f.path).split(path.sep).join('/'));

  it('lays out each kind after its convention', () => {
    expect(files(plan('folder', 'ps1'))).toEqual([
      'send-notification/metadata.yaml',
      'send-notification/script.ps1',
      'send-notification/test.ps1',
    ]);
    expect(files(plan('folder', 'ts'))).toEqual([
      'send-notification/metadata.yaml',
      'send-notification/script.ts',
      'send-notification/test.ts',
    ]);
    expect(files(plan('script', 'ps1'))).toEqual([
      'Send-Notification.ps1',
      'Send-Notification.test.ps1',
    ]);
    expect(files(plan('script', 'py'))).toEqual([
      'send_notification.py',
      'send_notification.test.mjs',
    ]);
    expect(files(plan('module', 'ps1'))).toEqual([
      'SendNotification.psm1',
      'SendNotification.test.ps1',
    ]);
    expect(files(plan('module', 'js'))).toEqual([
      'send-notification.mjs',
      'send-notification.test.mjs',
    ]);
    expect(files(plan('module', 'ts'))).toEqual([
      'send-notification.ts',
      'send-notification.test.ts',
    ]);
    expect(files(plan('basic', undefined))).toEqual(['send_notification.bas']);
  });

  it('names the tool as discovery will serve it', () => {
    expect(plan('folder', 'sh').toolName).toBe('send_notification');
    expect(plan('script', 'ps1').toolName).toBe('Send_Notification');
    expect(plan('module', 'ps1').toolName).toBe('Send_Notification');
    expect(plan('module', 'ts').toolName).toBe('send_notification');
  });

  it('defines Invoke-PascalCase in a PowerShell tool folder and escapes the description', () => {
    const folder = planTool({
      names,
      kind: 'folder',
      lang: 'ps1',
      dir,
      description: 'Says "hi" #> back',
      runTestWith: () => 'mcp test',
    });
    expect(folder.files[1]?.content).toContain('function Invoke-SendNotification {');
    expect(folder.files[0]?.content).toContain('description: "Says \\"hi\\" #> back"');
    const script = planTool({
      names,
      kind: 'script',
      lang: 'ps1',
      dir,
      description: 'Says "hi" #> back',
      runTestWith: () => 'mcp test',
    });
    expect(script.files[0]?.content).not.toMatch(/hi" #>/);
  });
});
