import type { ItemOutcome } from './compare-corpus.ts';

/** A kind of disagreement: how the comparison's lines of that kind read, and why such a line may stand. */
interface Cause {
  id: string;
  title: string;
  /** The first cause whose pattern matches a difference is its cause. */
  pattern: RegExp;
  /** The reason given in a new baseline group (the file's own reason is kept afterwards). */
  reason: string;
}

export const CAUSES: readonly Cause[] = [
  {
    id: 'module-refused',
    title: 'exported by pwsh, not listed: the whole module refused',
    pattern: /Toolpack does not list it \(the module is refused/,
    reason:
      'Issue 29 item 1: a module whose exports are decided at import time must be resolved like PowerShell does (static templates or the engine), never refused as a whole.',
  },
  {
    id: 'silently-missing',
    title: 'exported or read by pwsh, neither listed nor refused',
    pattern: /neither lists it nor says why/,
    reason:
      'Issue 29 item 1: every function pwsh exports is a tool or a refusal with a code; a silent omission hides tools from the user.',
  },
  {
    id: 'not-exported',
    title: 'listed, but pwsh does not export it',
    pattern: /a tool, but pwsh does not export it/,
    reason: 'Toolpack must not serve functions PowerShell keeps private.',
  },
  {
    id: 'unloadable-listed',
    title: 'pwsh cannot load it, Toolpack lists it',
    pattern: /(PowerShell|pwsh) cannot (load|import) it/,
    reason:
      'Issue 29 item 4: scripts the engine cannot load are not served (a parse error PowerShell finds and the static reader does not).',
  },
  {
    id: 'unexplained-refusal',
    title: 'refused for a reason pwsh does not share',
    pattern: /Toolpack refused it with \w+, which PowerShell's view does not explain/,
    reason:
      "Issue 29 items 1 and 3: a refusal must follow the specification's rules; this code refuses a function pwsh loads and documents.",
  },
  {
    id: 'type-refusal',
    title: 'refused whole for a type one parameter set needs',
    pattern: /refused whole with E_PARAMETER_TYPE/,
    reason:
      'Issue 29 item 4: a set that needs an unrepresentable mandatory parameter ([pscredential], [securestring], [scriptblock]) is dropped and the rest of the tool served.',
  },
  {
    id: 'help',
    title: 'whether there is help, and the tool description',
    pattern: /finds (no )?help|^[^$]*: description .* differs from Get-Help/,
    reason:
      "Issue 29 items 2 and 8: the description is Get-Help's (comment help or MAML), synopsis then description, not doubled.",
  },
  {
    id: 'parameter-description',
    title: 'parameter descriptions',
    pattern: /\$\S+: description .* differs from Get-Help/,
    reason: "Issue 29 item 2: a parameter's description is Get-Help's.",
  },
  {
    id: 'parameter-list',
    title: 'parameters missing or extra',
    pattern: /missing from the input schema|not a parameter for PowerShell/,
    reason:
      'The schema has every parameter pwsh binds (dynamic parameters and refused types excepted, each with a diagnostic).',
  },
  {
    id: 'type',
    title: 'parameter types',
    pattern: /: (items )?type \S+ for \[/,
    reason: 'Issue 29 item 4: the JSON type is what the engine converts to the parameter type.',
  },
  {
    id: 'parameter-sets',
    title: 'parameter sets',
    pattern: /parameter sets?|default set|oneOf|set \S+: parameters /,
    reason: "Parameter sets follow Get-Command's: names, default set, members.",
  },
  {
    id: 'required',
    title: 'required flags',
    pattern: /required is|: mandatory /,
    reason: 'Issue 29 item 4: required follows Mandatory, set by set.',
  },
  {
    id: 'dotnet-enum',
    title: '.NET enum parameter types',
    pattern: /\.NET enum/,
    reason:
      "Issue 29 item 4: a .NET enum parameter type is an enum of the type's names (the engine path knows them; well-known framework enums the static reader can too).",
  },
  {
    id: 'enum',
    title: 'enums (ValidateSet)',
    pattern: /ValidateSet|enum /,
    reason:
      "Issue 29 item 4: ValidateSet's values are the enum (any case accepted), for every parameter type.",
  },
  {
    id: 'default',
    title: 'defaults',
    pattern: /default/,
    reason: "Defaults are the param block's constants, in the parameter's JSON type.",
  },
  {
    id: 'pattern',
    title: 'patterns (ValidatePattern)',
    pattern: /pattern|ValidatePattern/,
    reason: 'ValidatePattern is the schema pattern, converted from .NET, case-insensitive.',
  },
  {
    id: 'bounds',
    title: 'ranges, lengths and counts',
    pattern: /minimum|maximum|minLength|maxLength|minItems|maxItems/,
    reason: 'ValidateRange, ValidateLength and ValidateCount are the schema bounds.',
  },
  {
    id: 'other',
    title: 'other',
    pattern: /./,
    reason: 'A difference of no other kind.',
  },
];

export function classifyDifference(difference: string): Cause {
  return CAUSES.find((cause) => cause.pattern.test(difference)) as Cause;
}

/** tests/powershell-corpus/baseline.json: the known differences, by cause, each group with why it stands. */
export interface Baseline {
  causes: Record<string, { reason: string; differences: string[] }>;
}

/** Every current difference grouped by cause, keeping the reasons `previous` gave. */
export function buildBaseline(outcomes: readonly ItemOutcome[], previous?: Baseline): Baseline {
  const causes: Baseline['causes'] = {};
  for (const cause of CAUSES) {
    const differences = outcomes
      .flatMap((outcome) => outcome.differences)
      .filter((difference) => classifyDifference(difference).id === cause.id)
      .sort();
    if (differences.length === 0) continue;
    causes[cause.id] = { reason: previous?.causes[cause.id]?.reason ?? cause.reason, differences };
  }
  return { causes };
}

/** What the current differences and the baseline disagree on: new ones fail, and so do fixed ones still listed. */
export function checkBaseline(
  outcomes: readonly ItemOutcome[],
  baseline: Baseline,
): { unexpected: string[]; gone: string[] } {
  const current = new Set(outcomes.flatMap((outcome) => outcome.differences));
  const known = new Set(Object.values(baseline.causes).flatMap((group) => group.differences));
  return {
    unexpected: [...current].filter((difference) => !known.has(difference)).sort(),
    gone: [...known].filter((difference) => !current.has(difference)).sort(),
  };
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** A difference as a code span: no backticks, and long descriptions cut (baseline.json has them whole). */
function shorten(difference: string): string {
  const text = difference.replaceAll('`', "'").replaceAll('\n', ' ');
  return text.length > 400 ? `${text.slice(0, 399)}…` : text;
}

function refusals(outcome: ItemOutcome): string {
  const entries = Object.entries(outcome.refusedByCode).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '—' : entries.map(([code, n]) => `${code} ${n}`).join(', ');
}

/** docs/powershell-corpus.md, from the comparison: the same text for the same tree and pwsh. */
export function renderReport(
  outcomes: readonly ItemOutcome[],
  meta: { psVersion: string; baseline: Baseline },
): string {
  const lines: string[] = [
    '# PowerShell as it ships: Toolpack against pwsh on public code',
    '',
    '<!-- Generated by `pnpm powershell-corpus` (tests/powershell-corpus/write-report.ts); do not edit. -->',
    '',
    'Six public PowerShell modules and two public script collections, vendored (trimmed, each with',
    'its source, commit, licence and cuts) under',
    '[`tests/powershell-corpus/fixtures/`](../tests/powershell-corpus/fixtures), are read twice: by',
    `the real pwsh (PowerShell ${meta.psVersion}: \`Import-Module\`, \`Get-Command\`, \`Get-Help -Full\`, the`,
    "parameter metadata and the param blocks' constant defaults, in one process) and by Toolpack",
    "(`discoverTools`, what `mcp list` and `mcp serve` use). The comparison is the PowerShell reader's",
    'parity comparison (descriptions, parameters, types, required flags, parameter sets, ValidateSet',
    'enums, patterns, bounds, defaults), plus: every function pwsh exports is a tool or refused with a',
    'code; no tool is a function pwsh keeps private; a .NET enum parameter type is an enum of its',
    'names; `[object]` and untyped parameters take any JSON value; enums ignore case as the engine',
    'does; a `[pscredential]` one parameter set needs does not refuse the others. A refusal counts as a disagreement only when',
    "pwsh's view contradicts its code (`E_PARAMETER_TYPE` for a mandatory `[pscredential]`, say, is",
    "Toolpack's own limit, not a disagreement).",
    '',
    '`tests/powershell-corpus/powershell-corpus.test.ts` runs the comparison in CI with a full pwsh.',
    'Every disagreement must be listed, with the reason it stands, in',
    '[`tests/powershell-corpus/baseline.json`](../tests/powershell-corpus/baseline.json), and the test',
    'fails when one is no longer found, so the baseline only shrinks; it also fails when this page is',
    'not what the comparison gives. After a change to the reader:',
    '',
    '```sh',
    'source scripts/toolchain.sh && pnpm powershell-corpus                     # rewrites this page',
    'source scripts/toolchain.sh && pnpm powershell-corpus --update-baseline   # and the baseline',
    '```',
    '',
    '## Per module and collection',
    '',
    '| source | layout | pwsh exports / reads | pwsh cannot load | Toolpack lists | refused, by code | disagreements |',
    '| --- | --- | ---: | ---: | ---: | --- | ---: |',
  ];
  for (const outcome of outcomes) {
    const { item } = outcome;
    lines.push(
      `| [${item.title}](${item.repository}) (${item.kind === 'module' ? 'module' : 'scripts'}) | ${cell(item.template)} | ${outcome.pwshCommands} | ${outcome.pwshUnloadable} | ${outcome.listed} | ${refusals(outcome)} | ${outcome.differences.length} |`,
    );
  }
  const total = (pick: (outcome: ItemOutcome) => number) =>
    outcomes.reduce((sum, outcome) => sum + pick(outcome), 0);
  lines.push(
    `| **all** | | ${total((o) => o.pwshCommands)} | ${total((o) => o.pwshUnloadable)} | ${total((o) => o.listed)} | | ${total((o) => o.differences.length)} |`,
    '',
    '## Disagreements by cause',
    '',
    '| cause | disagreements | in | why it stands (baseline) |',
    '| --- | ---: | --- | --- |',
  );
  for (const cause of CAUSES) {
    const where = outcomes
      .map((outcome) => ({
        title: outcome.item.title,
        n: outcome.differences.filter((d) => classifyDifference(d).id === cause.id).length,
      }))
      .filter(({ n }) => n > 0);
    if (where.length === 0) continue;
    const count = where.reduce((sum, { n }) => sum + n, 0);
    const reason = meta.baseline.causes[cause.id]?.reason ?? 'not in the baseline';
    lines.push(
      `| ${cause.title} | ${count} | ${where.map(({ title, n }) => `${title} ${n}`).join(', ')} | ${cell(reason)} |`,
    );
  }
  lines.push('', '## Every disagreement', '');
  for (const outcome of outcomes) {
    if (outcome.differences.length === 0) continue;
    lines.push(`### ${outcome.item.title}`, '');
    for (const cause of CAUSES) {
      const differences = outcome.differences
        .filter((d) => classifyDifference(d).id === cause.id)
        .sort();
      if (differences.length === 0) continue;
      lines.push(`${cause.title} (${differences.length}):`, '');
      for (const difference of differences) lines.push(`- \`${shorten(difference)}\``);
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
