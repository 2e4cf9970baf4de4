import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hasPwsh, PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceResult } from '../types.ts';
import { joinHelpDescription } from './comment-help.ts';
import { describePowerShellModule } from './describe-module.ts';
import { describePowerShellScript } from './describe-script.ts';
import { readUiCulture } from './find-external-help.ts';

const fixtures = fileURLToPath(new URL('./fixtures/external-help/', import.meta.url));
const collector = join(fixtures, 'collect-help.ps1');
const MODULES = [
  join(fixtures, 'MamlWidgets', 'MamlWidgets.psd1'),
  join(fixtures, 'PlainWidgets', 'PlainWidgets.psm1'),
  join(fixtures, 'BrokenHelp', 'BrokenHelp.psm1'),
  join(fixtures, 'ImportExcel', 'ImportExcel.psd1'),
];
/** Scripts whose comment help says `.EXTERNALHELP`: Get-Help reads the entry named `<File>.ps1`. */
const SCRIPTS = ['Get-Gadget.ps1', 'Get-Sprocket.ps1', 'Get-Cog.ps1'].map((name) =>
  join(fixtures, 'Scripts', name),
);
/** Each decides other culture folders: the invariant culture (the module's own folder first), a culture with a folder, one that falls back to en-US, one that falls back to the module's folder. */
const LOCALES = ['C.UTF-8', 'de_DE.UTF-8', 'en_US.UTF-8', 'fr_FR.UTF-8'];
const PWSH_TIMEOUT_MS = 120_000;

interface HelpFacts {
  culture: string;
  commands: Array<{
    module: string;
    name: string;
    hasHelp: boolean;
    helpFile: string | null;
    synopsis: string;
    description: string[];
    parameters: Record<string, string[]>;
    declared: string[];
  }>;
}

/** The locale variables as a shell with only LANG set has them: ICU reads LC_ALL and LC_MESSAGES first. */
function localeEnvironment(lang: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LANG: lang };
  delete env.LC_ALL;
  delete env.LC_MESSAGES;
  return env;
}

async function collectHelp(work: string, lang: string): Promise<HelpFacts> {
  const listPath = join(work, `${lang}.txt`);
  const outPath = join(work, `${lang}.json`);
  writeFileSync(listPath, `${[...MODULES, ...SCRIPTS].join('\n')}\n`);
  await promisify(execFile)(
    'pwsh',
    [
      '-NoLogo',
      '-NoProfile',
      '-NonInteractive',
      '-File',
      collector,
      '-ListPath',
      listPath,
      '-OutPath',
      outPath,
    ],
    { env: localeEnvironment(lang), timeout: PWSH_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(readFileSync(outPath, 'utf8')) as HelpFacts;
}

function paragraphs(items: readonly string[]): string {
  return items.filter((item) => item.trim() !== '').join('\n\n');
}

/** Every difference between what Get-Help gave and what Toolpack made of the same modules. */
async function findMismatches(facts: HelpFacts): Promise<string[]> {
  const mismatches: string[] = [];
  const results = new Map<string, SourceResult>();
  for (const path of MODULES)
    results.set(path, await describePowerShellModule({ path, uiCulture: facts.culture }));
  for (const path of SCRIPTS)
    results.set(
      path,
      await describePowerShellScript({
        path,
        content: readFileSync(path, 'utf8'),
        uiCulture: facts.culture,
      }),
    );
  for (const command of facts.commands) {
    const label = `[${facts.culture}] ${command.name}`;
    const result = results.get(command.module) as SourceResult;
    const isScript = SCRIPTS.includes(command.module);
    // A script is its file's only command; Get-Command names it with its extension.
    const tool = isScript
      ? result.tools[0]
      : result.tools.find((t) => t.originalName === command.name);
    const errors = result.diagnostics
      .filter(
        (d) =>
          d.severity === 'error' && (isScript || d.message.includes(`function ${command.name} `)),
      )
      .map((d) => d.code);
    const description = command.hasHelp
      ? joinHelpDescription(command.synopsis, paragraphs(command.description))
      : '';
    const documented = new Map(
      Object.entries(command.parameters).map(([name, items]) => [name.toLowerCase(), items]),
    );
    const undescribed = command.declared.filter(
      (name) => paragraphs(documented.get(name.toLowerCase()) ?? []) === '',
    );
    if (description === '' || undescribed.length > 0) {
      // Without any help, the comments next to parameters are the reader's own choice (parity.test.ts).
      const refused =
        description === ''
          ? errors.includes('E_NO_DESCRIPTION')
          : errors.filter((code) => code === 'E_PARAMETER_NO_DESCRIPTION').length ===
            undescribed.length;
      if (!refused)
        mismatches.push(
          `${label}: Get-Help has ${description === '' ? 'no description' : 'a description'} and no description for ${JSON.stringify(undescribed)}, Toolpack reported ${JSON.stringify(errors)}`,
        );
      continue;
    }
    if (tool === undefined || errors.length > 0) {
      mismatches.push(
        `${label}: Get-Help describes it, Toolpack refused it: ${JSON.stringify(errors)}`,
      );
      continue;
    }
    if (tool.description !== description)
      mismatches.push(
        `${label}: description ${JSON.stringify(tool.description)} differs from Get-Help's ${JSON.stringify(description)}`,
      );
    const properties = (tool.inputSchema.properties ?? {}) as Record<
      string,
      { description?: string }
    >;
    for (const name of command.declared) {
      const expected = paragraphs(documented.get(name.toLowerCase()) ?? []);
      if (properties[name]?.description !== expected)
        mismatches.push(
          `${label} -${name}: ${JSON.stringify(properties[name]?.description)} differs from Get-Help's ${JSON.stringify(expected)}`,
        );
    }
  }
  return mismatches;
}

describe.skipIf(!hasPwsh)(`external help parity on ${pwshEngine?.description ?? 'pwsh'}`, () => {
  let work = '';
  const facts = new Map<string, HelpFacts>();

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolpack-external-help-'));
    // One pwsh per locale: the UI culture is fixed when pwsh starts.
    for (const lang of LOCALES) facts.set(lang, await collectHelp(work, lang));
  }, PWSH_TIMEOUT_MS * LOCALES.length);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it(`${PWSH_TEST_TAG} gives every function the help Get-Help gives it, in every culture`, async () => {
    const mismatches: string[] = [];
    let compared = 0;
    for (const lang of LOCALES) {
      const collected = facts.get(lang) as HelpFacts;
      mismatches.push(...(await findMismatches(collected)));
      compared += collected.commands.length;
    }
    expect(compared).toBe(LOCALES.length * (18 + SCRIPTS.length));
    expect(mismatches).toEqual([]);
  });

  it(`${PWSH_TEST_TAG} reads the UI culture from the environment as pwsh does`, () => {
    // tools/pwsh-engine is built with invariant globalization: every locale is '' there.
    for (const lang of LOCALES) {
      const culture = (facts.get(lang) as HelpFacts).culture;
      if (pwshEngine?.kind === 'full')
        expect(readUiCulture(localeEnvironment(lang)), lang).toBe(culture);
      else expect(culture).toBe('');
    }
  });

  it(`${PWSH_TEST_TAG} exercises each precedence rule: the help comes from the file the fixture names`, () => {
    const invariant = facts.get('C.UTF-8') as HelpFacts;
    const source = (name: string): string | null => {
      const file = invariant.commands.find((c) => c.name === name)?.helpFile ?? null;
      return file === null ? null : file.slice(fixtures.length);
    };
    expect(source('Get-Widget')).toBe('MamlWidgets/en-US/MamlWidgets-help.xml');
    expect(source('Set-Widget')).toBeNull();
    expect(source('Remove-Widget')).toBe('MamlWidgets/en-US/Other-help.xml');
    expect(source('Copy-Widget')).toBeNull();
    expect(source('Add-Widget')).toBe('MamlWidgets/en-US/MamlWidgets-help.xml');
    expect(source('Test-Widget')).toBe('MamlWidgets/en-US/MamlWidgets-help.xml');
    expect(source('Find-Widget')).toBeNull();
    expect(source('Get-Thing')).toBe('MamlWidgets/Public/en-US/Thing-help.xml');
    expect(source('Get-Gadget')).toBe('MamlWidgets/Nested/en-US/Gadgets.psm1-help.xml');
    expect(source('Get-PlainWidget')).toBe('PlainWidgets/PlainWidgets-help.xml');
    expect(source('Get-BrokenWidget')).toBeNull();
    expect(source('Remove-Worksheet')).toBe('ImportExcel/en/ImportExcel-help.xml');
    expect(source('Get-Gadget.ps1')).toBe('Scripts/en-US/Gadgets-help.xml');
    expect(source('Get-Sprocket.ps1')).toBeNull();
    expect(invariant.commands.find((c) => c.name === 'Get-Cog.ps1')?.hasHelp).toBe(false);
    const german = (facts.get('de_DE.UTF-8') as HelpFacts).commands;
    if (pwshEngine?.kind === 'full')
      expect(
        german.find((c) => c.name === 'Get-Gadget.ps1')?.helpFile?.slice(fixtures.length),
      ).toBe('Scripts/de-DE/Gadgets-help.xml');
  });
});
