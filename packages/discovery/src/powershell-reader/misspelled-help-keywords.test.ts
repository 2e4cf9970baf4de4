import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPwsh, PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findScriptHelp } from './comment-help.ts';
import { describePowerShellScriptContent } from './describe-script.ts';
import { readPowerShell } from './reader.ts';

/** Scripts whose help block has one keyword misspelled, and the keyword meant. */
const MISSPELLED: Record<string, { content: string; meant: string }> = {
  synopsis: {
    content: '<#\n.SYNOPSYS\nSets the mode.\n#>\nparam([string]$Mode)\n"mode $Mode"\n',
    meant: '.SYNOPSIS',
  },
  parameter: {
    content:
      '<#\n.SYNOPSIS\nSets the mode.\n.PARAMETR Mode\nThe mode.\n#>\nparam([string]$Mode)\n"mode $Mode"\n',
    meant: '.PARAMETER',
  },
};
const SPELLED =
  '<#\n.SYNOPSIS\nSets the mode.\n.PARAMETER Mode\nThe mode.\n#>\nparam([string]$Mode)\n"mode $Mode"\n';

describe('misspelled help keywords', () => {
  it('refuse the tool, naming the keyword meant, where the block was the only help', () => {
    for (const [name, { content, meant }] of Object.entries(MISSPELLED)) {
      const result = describePowerShellScriptContent({ path: '/scripts/Set-Mode.ps1', content });
      expect(result.tools, name).toEqual([]);
      const error = result.diagnostics.find((d) => d.code === 'E_NO_DESCRIPTION');
      expect(error?.message, name).toMatch(
        new RegExp(
          `ignores the help block at line \\d+ because .*\\(did you mean \\${meant}\\?\\)`,
        ),
      );
      expect(error?.hint, name).toBe(
        `Did you mean ${meant}? Get-Help ignores the whole block while one keyword in it is unknown.`,
      );
    }
  });

  it('warn when help is found elsewhere and a misspelled block is left out', () => {
    const content = `<#\n.SYNOPSIS\nSets the mode.\n.PARAMETER Mode\nThe mode.\n#>\nparam([string]$Mode)\n"mode $Mode"\n`;
    // A block before the help, meant as notes: Get-Help skips it and reads the next one.
    const search = findScriptHelp(readPowerShell(`<#\n.NOTS\nx\n#>\n\n${content}`));
    expect(search.help?.synopsis).toBe('Sets the mode.');
    expect(search.rejections).toEqual([expect.objectContaining({ line: 2, suggestion: '.NOTES' })]);
    const result = describePowerShellScriptContent({
      path: '/scripts/Set-Mode.ps1',
      content: `<#\n.NOTS\nx\n#>\n\n${content}`,
    });
    expect(result.tools).toHaveLength(1);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: 'warning',
        code: 'W_MISSPELLED_KEYWORD',
        line: 2,
        hint: 'Did you mean .NOTES? Correct the keyword.',
      }),
    );
  });

  it('leave a comment that is no help attempt alone', () => {
    const search = findScriptHelp(readPowerShell('<#\n.Net is used here\n#>\nparam()\n'));
    expect(search.rejections).toEqual([]);
  });
});

describe.skipIf(!hasPwsh)(
  `misspelled help keywords on ${pwshEngine?.description ?? 'pwsh'}`,
  () => {
    let work = '';
    let answers: Record<string, { synopsis: string; parameter: string }> = {};

    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'toolpack-help-keywords-'));
      const scripts = {
        ...Object.fromEntries(Object.entries(MISSPELLED).map(([k, v]) => [k, v.content])),
        spelled: SPELLED,
      };
      for (const [name, content] of Object.entries(scripts))
        writeFileSync(join(work, `${name}.ps1`), content);
      const probe = join(work, 'probe.ps1');
      writeFileSync(
        probe,
        [
          '$answer = [ordered]@{}',
          `foreach ($name in @(${Object.keys(scripts)
            .map((n) => `'${n}'`)
            .join(', ')})) {`,
          `  $help = Get-Help (Join-Path '${work.replace(/'/g, "''")}' "$name.ps1") -Full`,
          '  $parameter = ($help.parameters.parameter | Where-Object name -eq Mode).description.Text',
          '  $answer[$name] = @{ synopsis = "$($help.Synopsis)".Trim(); parameter = "$parameter" }',
          '}',
          '$answer | ConvertTo-Json -Compress',
        ].join('\n'),
      );
      answers = JSON.parse(
        execFileSync('pwsh', ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', probe], {
          encoding: 'utf8',
          timeout: 120_000,
        }),
      ) as typeof answers;
    }, 130_000);

    afterAll(() => {
      if (work !== '') rmSync(work, { recursive: true, force: true });
    });

    it(`${PWSH_TEST_TAG} matches Get-Help: one misspelled keyword makes it ignore the whole block`, () => {
      expect(answers.spelled).toEqual({ synopsis: 'Sets the mode.', parameter: 'The mode.' });
      for (const name of Object.keys(MISSPELLED)) {
        // No help: Get-Help shows the syntax line as the synopsis and no parameter text.
        expect(answers[name]?.synopsis, name).toMatch(/^\w+\.ps1 \[\[-Mode\] <string>\]$/);
        expect(answers[name]?.parameter, name).toBe('');
      }
    });
  },
);
