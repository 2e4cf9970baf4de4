import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import { hasPwsh, PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPowerShellFacts } from '../testing/collect-powershell-facts.ts';
import type { CollectEntry, PowerShellFacts } from '../testing/collect-powershell-facts.ts';
import { generateParityCorpus } from '../testing/powershell-parity-corpus.ts';
import { compareCommand, errorCodes } from '../testing/powershell-parity-compare.ts';
import type { OurCommand } from '../testing/powershell-parity-compare.ts';
import { compareExamples, compareOutputTypes } from '../testing/powershell-parity-output.ts';
import { applyHelpLeniency } from '../lenient-help.ts';
import type { SourceResult } from '../types.ts';
import { describePowerShellModule } from './describe-module.ts';
import { describePowerShellScriptContent } from './describe-script.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const corpus = join(fixtures, 'parity');
const collector = join(fixtures, 'parity-collect.ps1');
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** Generated scripts per CI run (FC_RUNS_SCALE multiplies them), and modules beside them. */
const GENERATED_SCRIPTS = fuzzRuns(500);
const GENERATED_MODULES = fuzzRuns(60);
/** Fixed, so a difference found in CI is found again locally; FC_SEED picks another corpus. */
const CORPUS_SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : 20_261_121;
const PWSH_TIMEOUT_MS = 15 * 60_000;

/**
 * Repository files left out of the comparison, and why. Everything else `git ls-files` finds
 * with .ps1 or .psm1 is compared.
 */
const REPO_EXCLUSIONS: ReadonlyArray<{ pattern: RegExp; reason: string }> = [
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/modules\/DynamicExport\//,
    reason:
      'exports a name computed by a method call when imported: the static reading refuses it on purpose (E_DYNAMIC_EXPORTS) and the engine fallback answers it; describe-module.test.ts covers that',
  },
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/modules\/BrokenFile\//,
    reason:
      'one dot-sourced file does not parse: Import-Module loads the others, but the collector imports with -ErrorAction Stop, which turns that error into a failed import; describe-module.test.ts covers the reading',
  },
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/modules\/EngineExports\//,
    reason:
      'decides its files and exports in ways only the engine can follow, so discovery asks pwsh (not the static reading this test checks); discover-powershell-module.test.ts compares that path with pwsh',
  },
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/modules\/DynamicParameters\//,
    reason:
      'requires Gears.dll, which its tests compile from Gears.cs into a copy (no binary in the repository), and its dynamicparam parameters and compiled enums come from the engine; discover-engine-facts.test.ts compares that path with pwsh',
  },
  {
    pattern: /^packages\/cli\/src\/commands\/pack\/fixtures\/modules\/EchoMain\//,
    reason:
      'requires the module EchoHelpers (RequiredModules), which pack add installs beside it from the same feed: imported alone it fails; nuget-feeds.e2e.test.ts serves the pair as a pack with pwsh',
  },
  {
    pattern: /^apps\/registry\/src\/nuget\/fixtures\/modules\/WorldClocks\//,
    reason:
      'requires the module TimeHelpers (RequiredModules), which the gallery and Install-PSResource install beside it: imported alone it fails; nuget-endpoint.test.ts and tests/system/powershell-gallery serve the pair with pwsh',
  },
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/modules\/Binary\//,
    reason: 'a binary module fixture whose DLL does not exist: nothing to import',
  },
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/modules\/Nested\//,
    reason:
      'names an installed module (SomeInstalledModule) that exists on no test machine: discovery skips such names on purpose (I_NESTED_MODULE_SKIPPED), Import-Module fails without it',
  },
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/modules\/StaticDotSource\//,
    reason:
      'dot-sources with a Windows path ($PSScriptRoot\\Functions\\Get-Thing.ps1), which pwsh on Linux cannot open; discovery follows either separator on purpose, since modules are written on Windows and listed anywhere',
  },
  {
    pattern: /^packages\/discovery\/src\/powershell-reader\/fixtures\/external-help\//,
    reason:
      'take their help from MAML files, which GetHelpContent() (comment help only) does not see: external-help-parity.test.ts compares them with Get-Help in four cultures',
  },
  {
    pattern: /^packages\/runners\/src\/pwsh\/fixtures\/modules\/SlowImport\//,
    reason: 'sleeps 1.5 s on import to test the runner; it documents nothing',
  },
  {
    pattern: /^packages\/runners\/src\/pwsh\/fixtures\/session\//,
    reason:
      "a runner fixture whose Broken.psm1 throws on import on purpose, to test how a tool folder's session reports a preload that cannot load; it documents nothing",
  },
  {
    pattern: /^packages\/runners\/src\/pwsh\/fixtures\/modules\/BrokenFile\//,
    reason:
      "a runner fixture with a dot-sourced file that does not parse, to test that the host serves the rest as Import-Module does; the collector's -ErrorAction Stop import fails on it (see the discovery BrokenFile fixture)",
  },
  {
    pattern: /^tests\/seeds\/fixtures\/dotbot-upstream\//,
    reason:
      "dotbot's own framework modules as they ship: imported one after another into this test's one session they shadow each other (each alone exports what Toolpack lists: Dotbot.Runtime's Resolve-RuntimeEndpoint, for one); tests/seeds/dotbot-upstream.e2e.test.ts compares them with dotbot's own server",
  },
  {
    pattern: /^tests\/powershell-corpus\/fixtures\//,
    reason:
      'public modules and scripts as they ship, compared with pwsh by tests/powershell-corpus against a baseline of known differences (this test allows none)',
  },
];

function gitFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', '*.ps1', '*.psm1'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(repoRoot, file)))
    .sort();
}

/** A module is imported through its manifest when one with its name sits beside it. */
function moduleEntryPath(psm1: string): string {
  const manifest = join(dirname(psm1), `${basename(psm1, '.psm1')}.psd1`);
  return existsSync(manifest) ? manifest : psm1;
}

interface CorpusFile extends CollectEntry {
  /** How mismatches name it. */
  label: string;
}

function repoCorpus(): CorpusFile[] {
  const files: CorpusFile[] = [];
  const seen = new Set<string>();
  for (const file of gitFiles()) {
    if (REPO_EXCLUSIONS.some(({ pattern }) => pattern.test(file))) continue;
    const absolute = join(repoRoot, file);
    if (file.endsWith('.ps1')) {
      files.push({ kind: 'script', path: absolute, label: file });
      continue;
    }
    const path = moduleEntryPath(absolute);
    if (seen.has(path)) continue;
    seen.add(path);
    files.push({ kind: 'module', path, label: relative(repoRoot, path) });
  }
  return files;
}

function writeGeneratedCorpus(root: string): CorpusFile[] {
  const files: CorpusFile[] = [];
  mkdirSync(join(root, 'scripts'), { recursive: true });
  for (const file of generateParityCorpus({
    scripts: GENERATED_SCRIPTS,
    modules: GENERATED_MODULES,
    seed: CORPUS_SEED,
  })) {
    if (file.kind === 'script') {
      const path = join(root, 'scripts', file.name);
      writeFileSync(path, file.content);
      files.push({ kind: 'script', path, label: `generated/scripts/${file.name}` });
    } else {
      const folder = join(root, 'modules', basename(file.name, '.psm1'));
      mkdirSync(folder, { recursive: true });
      const path = join(folder, file.name);
      writeFileSync(path, file.content);
      files.push({ kind: 'module', path, label: `generated/modules/${file.name}` });
    }
  }
  return files;
}

/** As a project gets it by default: a tool with undescribed parameters is refused. */
async function describeFile(file: CorpusFile): Promise<SourceResult> {
  return applyHelpLeniency(
    file.kind === 'script'
      ? describePowerShellScriptContent({
          path: file.path,
          content: readFileSync(file.path, 'utf8'),
        })
      : await describePowerShellModule({ path: file.path }),
    false,
  );
}

/** Every difference between PowerShell's facts and Toolpack's reading of `files`. */
async function findMismatches(
  files: readonly CorpusFile[],
  facts: PowerShellFacts,
): Promise<{
  mismatches: string[];
  compared: number;
}> {
  const mismatches: string[] = [];
  let compared = 0;
  for (const file of files) {
    const result = await describeFile(file);
    if (file.kind === 'script') {
      const command = facts.commands.find((c) => c.kind === 'script' && c.file === file.path);
      if (command === undefined) {
        mismatches.push(`${file.label}: PowerShell reported nothing`);
        continue;
      }
      const ours: OurCommand = {
        result,
        ...(result.tools[0] === undefined ? {} : { tool: result.tools[0] }),
      };
      mismatches.push(...compareCommand(command, ours, file.label));
      mismatches.push(...compareOutputTypes(command, ours, file.label));
      mismatches.push(...compareExamples(command, ours, file.label));
      compared += 1;
      continue;
    }
    const commands = facts.commands.filter((c) => c.module === file.path);
    for (const command of commands) {
      if (command.kind === 'module') {
        // PowerShell could not import it: Toolpack must refuse the whole module (E_PARSE,
        // E_MANIFEST, a missing root module...), with no tool.
        if (result.tools.length > 0 || errorCodes(result).length === 0)
          mismatches.push(
            `${file.label}: PowerShell cannot import it (${command.loadError}), Toolpack did not refuse it`,
          );
        compared += 1;
        continue;
      }
      const tool = result.tools.find((t) => t.originalName === command.name);
      const ours: OurCommand = { result, ...(tool === undefined ? {} : { tool }) };
      mismatches.push(...compareCommand(command, ours, `${file.label}:${command.name}`));
      mismatches.push(...compareOutputTypes(command, ours, `${file.label}:${command.name}`));
      mismatches.push(...compareExamples(command, ours, `${file.label}:${command.name}`));
      compared += 1;
    }
    // Toolpack must not make tools of functions PowerShell does not export.
    const exported = new Set(commands.map((c) => c.name));
    for (const tool of result.tools) {
      if (!exported.has(tool.originalName))
        mismatches.push(
          `${file.label}: ${tool.originalName} is a tool but PowerShell does not export it`,
        );
    }
  }
  return { mismatches, compared };
}

function scriptFiles(): string[] {
  return readdirSync(join(corpus, 'scripts'))
    .filter((name) => name.endsWith('.ps1'))
    .sort();
}

function moduleFiles(): string[] {
  return readdirSync(join(corpus, 'modules'))
    .sort()
    .map((folder) => moduleEntryPath(join(corpus, 'modules', folder, `${folder}.psm1`)));
}

/** Which parity-corpus commands are meant to be refused, and why; every other one must become a tool. */
const EXPECTED_REFUSALS: Record<string, string> = {
  'Get-ParityNearFunction': 'E_NO_DESCRIPTION',
  'Get-ParityRequires': 'E_NO_DESCRIPTION',
  'Get-ParityTrailingComment': 'E_PARAMETER_NO_DESCRIPTION',
  'Test-ParityModNoHelp': 'E_NO_DESCRIPTION,E_PARAMETER_NO_DESCRIPTION',
};

describe('parity with PowerShell', () => {
  it('has a corpus of at least 30 commands, each a tool or refused for its intended reason', async () => {
    const outcomes = new Map<string, string>();
    for (const name of scriptFiles()) {
      const path = join(corpus, 'scripts', name);
      const result = applyHelpLeniency(
        describePowerShellScriptContent({ path, content: readFileSync(path, 'utf8') }),
        false,
      );
      outcomes.set(
        name.replace(/\.ps1$/, ''),
        result.tools[0] !== undefined ? 'tool' : errorCodes(result).join(','),
      );
    }
    for (const path of moduleFiles()) {
      const result = applyHelpLeniency(await describePowerShellModule({ path }), false);
      for (const tool of result.tools) outcomes.set(tool.originalName, 'tool');
      for (const diagnostic of result.diagnostics.filter((d) => d.severity === 'error')) {
        const name = /function (\S+)/.exec(diagnostic.message)?.[1];
        if (name !== undefined)
          outcomes.set(name, [outcomes.get(name), diagnostic.code].filter(Boolean).join(','));
      }
    }
    expect(outcomes.size).toBeGreaterThanOrEqual(30);
    for (const [name, outcome] of outcomes) {
      expect(outcome, name).toBe(EXPECTED_REFUSALS[name] ?? 'tool');
    }
    expect(outcomes.has('Get-ParityModPrivate')).toBe(false);
    expect(outcomes.has('Get-ParityExportHidden')).toBe(false);
  });

  it('reads the collector script itself as valid PowerShell', () => {
    const result = describePowerShellScriptContent({
      path: collector,
      content: readFileSync(collector, 'utf8'),
    });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('generates distinct scripts and modules from a fixed seed', () => {
    const first = generateParityCorpus({ scripts: 50, modules: 5, seed: CORPUS_SEED });
    const again = generateParityCorpus({ scripts: 50, modules: 5, seed: CORPUS_SEED });
    expect(again).toEqual(first);
    expect(new Set(first.map((file) => file.content)).size).toBeGreaterThan(45);
    expect(new Set(first.map((file) => file.name)).size).toBe(first.length);
  });
});

describe.skipIf(!hasPwsh)(`parity with PowerShell on ${pwshEngine?.description ?? 'pwsh'}`, () => {
  let work = '';
  let repoFiles: CorpusFile[] = [];
  let generatedFiles: CorpusFile[] = [];
  let facts: PowerShellFacts;

  // One pwsh process for everything: its start, not the per-file work, is what costs.
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolpack-parity-'));
    repoFiles = repoCorpus();
    generatedFiles = writeGeneratedCorpus(join(work, 'generated'));
    facts = await collectPowerShellFacts({
      entries: [...repoFiles, ...generatedFiles],
      workDir: work,
      timeoutMs: PWSH_TIMEOUT_MS,
    });
  }, PWSH_TIMEOUT_MS);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it(`${PWSH_TEST_TAG} matches Get-Help/Get-Command for every .ps1 and .psm1 in the repository`, async () => {
    const { mismatches, compared } = await findMismatches(repoFiles, facts);
    expect(compared).toBeGreaterThanOrEqual(100);
    expect(mismatches, `PowerShell ${facts.psVersion} (${facts.engine})`).toEqual([]);
  }, 120_000);

  it(`${PWSH_TEST_TAG} compares several parameter sets set by set, and notices a set that differs`, () => {
    const withSets = facts.commands.filter((command) => (command.sets ?? []).length > 1);
    expect(withSets.length).toBeGreaterThanOrEqual(8);
    const mix = withSets.find((command) => command.name === 'Get-ParitySetsMandatoryMix');
    const path = mix?.file ?? '';
    const result = describePowerShellScriptContent({ path, content: readFileSync(path, 'utf8') });
    const tool = result.tools[0];
    expect(compareCommand(mix!, { result, tool: tool! }, 'mix')).toEqual([]);
    // The same tool with Name mandatory in ById too, and no default: both are noticed.
    const tampered = {
      ...tool!,
      parameterSets: tool!.parameterSets!.map((set) => ({
        ...set,
        isDefault: false,
        required: set.name === 'ById' ? ['Id', 'Name'] : set.required,
      })),
    };
    expect(compareCommand(mix!, { result, tool: tampered }, 'mix')).toEqual([
      "mix: default set undefined differs from PowerShell's ByName",
      'mix set ById: mandatory ["Id","Name"] differ from PowerShell\'s ["Id"]',
    ]);
  });

  it(`${PWSH_TEST_TAG} matches Get-Help/Get-Command for ${GENERATED_SCRIPTS} generated scripts and ${GENERATED_MODULES} modules`, async () => {
    const { mismatches, compared } = await findMismatches(generatedFiles, facts);
    expect(compared).toBeGreaterThanOrEqual(GENERATED_SCRIPTS);
    expect(mismatches, `PowerShell ${facts.psVersion} (${facts.engine})`).toEqual([]);
  }, 120_000);
});
