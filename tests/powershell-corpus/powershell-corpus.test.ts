// Issue 29's ground truth: public PowerShell modules and script collections as they ship
// (vendored under fixtures/), read by the real pwsh and by Toolpack, every disagreement either in
// baseline.json with its reason or a failure, and docs/powershell-corpus.md the report of it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DiscoveredTool } from '@toolpack/core';
import {
  compareEngineTypes,
  compareTypeRefusal,
  type CorpusCommand,
  type ItemOutcome,
} from './compare-corpus.ts';
import { CORPUS, itemRoot } from './corpus.ts';
import {
  CAUSES,
  buildBaseline,
  checkBaseline,
  classifyDifference,
  renderReport,
} from './corpus-report.ts';
import { CORPUS_TIMEOUT_MS, readBaseline, reportPath, runCorpusComparison } from './run-corpus.ts';

describe('the vendored PowerShell corpus', () => {
  it('holds six modules and two script collections, each with its repository, commit and licence', () => {
    expect(CORPUS.filter((item) => item.kind === 'module').length).toBeGreaterThanOrEqual(6);
    expect(CORPUS.filter((item) => item.kind === 'scripts').length).toBeGreaterThanOrEqual(2);
    for (const item of CORPUS) {
      const readme = readFileSync(path.join(itemRoot(item), 'README.md'), 'utf8');
      expect(readme, item.id).toContain(item.repository);
      expect(readme, item.id).toContain(item.commit);
      expect(readme, item.id).toMatch(/^- Licence: /m);
      expect(readme, item.id).toMatch(/^Cut/m);
      const licence = ['LICENSE', 'LICENSE.txt', 'LICENSE.md'].find((name) =>
        existsSync(path.join(itemRoot(item), name)),
      );
      expect(licence, `${item.id} keeps its licence file`).toBeDefined();
      if (item.entry !== undefined)
        expect(existsSync(path.join(itemRoot(item), item.entry))).toBe(true);
    }
  });

  it('has a baseline whose every group is a known cause with a reason', () => {
    const baseline = readBaseline();
    for (const [id, group] of Object.entries(baseline.causes)) {
      expect(
        CAUSES.map((cause) => cause.id),
        id,
      ).toContain(id);
      expect(group.reason.trim(), id).not.toBe('');
      for (const difference of group.differences)
        expect(classifyDifference(difference).id, difference).toBe(id);
    }
  });

  it('fails on a disagreement the baseline lacks and on a baselined one that is gone', () => {
    const outcome = (differences: string[]): ItemOutcome => ({
      item: CORPUS[0]!,
      pwshCommands: 1,
      pwshUnloadable: 0,
      listed: 1,
      refusedByCode: {},
      differences,
    });
    const known = 'PSSlack:Get-X $Mode: ValidateSet(A, B) is not in the schema';
    const baseline = buildBaseline([outcome([known])]);
    expect(baseline.causes.enum?.differences).toEqual([known]);
    expect(checkBaseline([outcome([known])], baseline)).toEqual({ unexpected: [], gone: [] });
    const fresh = 'PSSlack:Get-Y $Count: type string for [System.Int32], expected integer';
    expect(checkBaseline([outcome([fresh])], baseline)).toEqual({
      unexpected: [fresh],
      gone: [known],
    });
  });
});

describe('the checks the parity comparison lacks', () => {
  const validation = {
    sets: [],
    ranges: [],
    patterns: [],
    lengths: [],
    counts: [],
    notEmpty: false,
  };
  const parameter = (name: string, type: string, extra: object = {}) => ({
    name,
    type,
    mandatory: false,
    description: 'd',
    helpDefault: null,
    default: { hasDefault: false, constant: false, value: null, text: null },
    validation,
    ...extra,
  });
  const command = (parameters: CorpusCommand['parameters'], sets?: CorpusCommand['sets']) =>
    ({
      kind: 'function',
      file: '/m/Get-X.ps1',
      module: '/m/M.psd1',
      name: 'Get-X',
      hasHelp: true,
      parameters,
      ...(sets ? { sets, parameterSets: sets.map((set) => set.name) } : {}),
    }) as CorpusCommand;
  const tool = (properties: Record<string, object>) =>
    ({
      name: 'Get_X',
      originalName: 'Get-X',
      inputSchema: { type: 'object', properties },
    }) as unknown as DiscoveredTool;

  it('wants a .NET enum type as an enum of its names in any case, and [object] as any value', () => {
    const pwsh = command([
      parameter('Style', 'My.Style', { enumNames: ['Bold', 'Thin'], enumFlags: false }),
      parameter('Flags', 'My.Flags', { enumNames: ['A', 'B'], enumFlags: true }),
      parameter('Value', 'System.Object'),
    ]);
    const served = tool({
      Style: { type: 'string', enum: ['Bold', 'Thin'], 'x-enumIgnoreCase': true },
      Flags: { type: 'string' },
      Value: {},
    });
    expect(compareEngineTypes(pwsh, served, 'M:Get-X')).toEqual([]);
    expect(
      compareEngineTypes(
        pwsh,
        tool({ Style: { type: 'string' }, Flags: { type: 'string' }, Value: { type: 'string' } }),
        'M:Get-X',
      ),
    ).toEqual([
      'M:Get-X $Style: .NET enum [My.Style] (2 names) is not an enum in the schema',
      'M:Get-X $Value: type "string" for [System.Object], expected any JSON value',
    ]);
    expect(
      compareEngineTypes(
        pwsh,
        tool({ Style: { type: 'string', enum: ['Bold', 'Thin'] } }),
        'M:Get-X',
      ),
    ).toEqual([
      "M:Get-X $Style: the .NET enum [My.Style] takes its names in any case, the schema's enum keeps case (x-enumIgnoreCase)",
    ]);
  });

  it("wants a ValidateSet's enum to ignore case unless IgnoreCase = $false", () => {
    const withSet = (ignoreCase: boolean) =>
      command([
        parameter('Mode', 'System.String', {
          validation: { ...validation, sets: [{ values: ['Fast', 'Slow'], ignoreCase }] },
        }),
      ]);
    const keeping = tool({ Mode: { type: 'string', enum: ['Fast', 'Slow'] } });
    const ignoring = tool({
      Mode: { type: 'string', enum: ['Fast', 'Slow'], 'x-enumIgnoreCase': true },
    });
    expect(compareEngineTypes(withSet(true), ignoring, 'M:Get-X')).toEqual([]);
    expect(compareEngineTypes(withSet(false), keeping, 'M:Get-X')).toEqual([]);
    expect(compareEngineTypes(withSet(true), keeping, 'M:Get-X')).toHaveLength(1);
    expect(compareEngineTypes(withSet(false), ignoring, 'M:Get-X')).toHaveLength(1);
  });

  it('wants a tool refused for a [pscredential] only when every parameter set needs one', () => {
    const refusal = [
      {
        severity: 'error' as const,
        code: 'E_PARAMETER_TYPE' as const,
        message: 'Get-X needs $Credential',
        path: '/m/Get-X.ps1',
      },
    ];
    const credential = parameter('Credential', 'System.Management.Automation.PSCredential');
    const name = parameter('Name', 'System.String');
    const bothNeedIt = command(
      [credential, name],
      [
        { name: 'A', isDefault: true, parameters: [{ name: 'Credential', mandatory: true }] },
        { name: 'B', isDefault: false, parameters: [{ name: 'Credential', mandatory: true }] },
      ],
    );
    expect(compareTypeRefusal(bothNeedIt, undefined, refusal, 'M:Get-X')).toEqual([]);
    const oneNeedsIt = command(
      [credential, name],
      [
        { name: 'A', isDefault: true, parameters: [{ name: 'Credential', mandatory: true }] },
        { name: 'B', isDefault: false, parameters: [{ name: 'Name', mandatory: true }] },
      ],
    );
    expect(compareTypeRefusal(oneNeedsIt, undefined, refusal, 'M:Get-X')).toEqual([
      'M:Get-X: refused whole with E_PARAMETER_TYPE, though its parameter sets ["B"] need no unrepresentable mandatory parameter',
    ]);
  });
});

const fullPwsh = pwshEngine?.kind === 'full';

describe.skipIf(!fullPwsh)(
  `${PWSH_TEST_TAG} public modules and scripts against pwsh [needs a full pwsh: the corpus imports modules that use its built-in modules]`,
  () => {
    let psVersion = '';
    let outcomes: ItemOutcome[] = [];

    // One pwsh process for the whole corpus: about 1,950 commands, most of the time Get-Help.
    beforeAll(async () => {
      ({ psVersion, outcomes } = await runCorpusComparison());
    }, CORPUS_TIMEOUT_MS);

    it('compares a module of 500+ exported functions and one whose help is MAML', () => {
      const byId = new Map(outcomes.map((outcome) => [outcome.item.id, outcome]));
      expect(byId.get('dbatools')?.pwshCommands).toBeGreaterThanOrEqual(500);
      // ImportExcel's functions have no comment help; Get-Help reads en/ImportExcel-help.xml.
      expect(byId.get('ImportExcel')?.pwshCommands).toBeGreaterThanOrEqual(60);
      for (const outcome of outcomes)
        expect(outcome.pwshCommands, outcome.item.id).toBeGreaterThan(0);
    });

    it('finds every disagreement with pwsh in the baseline, and every baselined one still there', () => {
      const { unexpected, gone } = checkBaseline(outcomes, readBaseline());
      expect(
        { unexpected, gone },
        'run `pnpm powershell-corpus --update-baseline` after fixing (gone) or to accept with a reason (unexpected)',
      ).toEqual({ unexpected: [], gone: [] });
    });

    it('has docs/powershell-corpus.md as the report of this comparison', () => {
      const expected = renderReport(outcomes, { psVersion, baseline: readBaseline() });
      expect(readFileSync(reportPath, 'utf8'), 'run `pnpm powershell-corpus`').toBe(expected);
    });
  },
);
