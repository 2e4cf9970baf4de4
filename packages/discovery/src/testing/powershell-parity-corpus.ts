import fc from 'fast-check';

/**
 * Random PowerShell scripts and script modules for the parity suite: the constructs the reader
 * must read exactly as PowerShell does (parameter types, arrays, attributes, constant and
 * computed defaults, help before/inside/after the param block and as line comments, `.NOTES`
 * lines, several parameter sets). Nothing here predicts PowerShell's answer: the suite asks the
 * engine. The pieces are valid PowerShell, so each file loads and every difference is a reading
 * difference, not a syntax error the two sides report differently.
 */

/** One generated file: a script (`.ps1`) or a script module (`.psm1`). */
export interface GeneratedPowerShellFile {
  kind: 'script' | 'module';
  /** The file name, unique within one corpus once `name` adds its index. */
  name: string;
  content: string;
}

interface TypeChoice {
  /** As written between brackets; '' for an untyped parameter. */
  text: string;
  category: 'string' | 'integer' | 'number' | 'boolean' | 'switch' | 'array' | 'object' | 'other';
  /** For arrays: the element category. */
  element?: TypeChoice['category'];
}

const TYPES: readonly TypeChoice[] = [
  { text: '', category: 'other' },
  { text: 'string', category: 'string' },
  { text: 'String', category: 'string' },
  { text: 'System.String', category: 'string' },
  { text: 'char', category: 'other' },
  { text: 'int', category: 'integer' },
  { text: 'Int32', category: 'integer' },
  { text: 'long', category: 'integer' },
  { text: 'byte', category: 'integer' },
  { text: 'uint16', category: 'integer' },
  { text: 'double', category: 'number' },
  { text: 'decimal', category: 'number' },
  { text: 'single', category: 'number' },
  { text: 'bool', category: 'boolean' },
  { text: 'switch', category: 'switch' },
  { text: 'System.Management.Automation.SwitchParameter', category: 'switch' },
  { text: 'datetime', category: 'other' },
  { text: 'guid', category: 'other' },
  { text: 'uri', category: 'other' },
  { text: 'version', category: 'other' },
  { text: 'timespan', category: 'other' },
  { text: 'System.IO.FileInfo', category: 'other' },
  { text: 'object', category: 'other' },
  { text: 'hashtable', category: 'object' },
  { text: 'pscustomobject', category: 'object' },
  { text: 'Nullable[int]', category: 'integer' },
  { text: 'string[]', category: 'array', element: 'string' },
  { text: 'int[]', category: 'array', element: 'integer' },
  { text: 'double[]', category: 'array', element: 'number' },
  { text: 'object[]', category: 'array', element: 'other' },
  { text: 'array', category: 'array', element: 'other' },
  { text: 'System.Collections.Generic.List[string]', category: 'array', element: 'string' },
  { text: 'System.Collections.Generic.List[int]', category: 'array', element: 'integer' },
  { text: 'scriptblock', category: 'other' },
];

const NAMES = [
  'Name',
  'Path',
  'Count',
  'Limit',
  'Color',
  'Size',
  'Tag',
  'Mode',
  'Level',
  'Items',
  'Target',
  'Label',
  'Start',
  'Timeout',
  'Retry',
  'Owner',
  'Region',
  'Format',
  'Filter',
  'Enabled',
] as const;

const WORDS = [
  'widget',
  'store',
  'colour',
  'the',
  'returns',
  'gets',
  'archived',
  'quickly',
  'size',
  'of',
  'each',
  'item',
  'café',
  'x-ray',
  '(optional)',
  'and',
  "it's",
  '100%',
  'a',
  'list',
] as const;

const sentence = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 })
  .map((words) => `${words.join(' ')}.`);

/** A constant default PowerShell's SafeGetValue accepts, fitting the category most of the time. */
function constantDefault(category: TypeChoice['category']): fc.Arbitrary<string> {
  const anyConstant = fc.constantFrom("'text'", '7', '$true', '$null', '@()', '@{ a = 1 }');
  const byCategory: Record<TypeChoice['category'], fc.Arbitrary<string>> = {
    string: fc.constantFrom("'red'", '"plain"', "'it''s'", "''", '42', "'a b c'"),
    integer: fc.constantFrom('0', '5', '-3', '0x10', '1kb', '[int]::MaxValue', "[int]'12'", '100'),
    number: fc.constantFrom('1.5', '-0.25', '3', '2e3', '[double]::MaxValue', '10'),
    boolean: fc.constantFrom('$true', '$false', '1', '0'),
    switch: fc.constantFrom('$true', '$false'),
    array: fc.constantFrom('@()', "@('a', 'b')", '@(1, 2, 3)', "'one'", '@(1)'),
    object: fc.constantFrom('@{}', "@{ a = 1; b = 'two' }"),
    other: fc.constantFrom("'2024-01-02'", "'x'", '5', '$false', '@(1, 2)', '@{ k = 1 }'),
  };
  return fc.oneof(
    { weight: 6, arbitrary: byCategory[category] },
    { weight: 1, arbitrary: anyConstant },
  );
}

/** A default PowerShell computes when the script runs: never a schema default. */
const computedDefault = fc.constantFrom(
  '$env:HOME',
  '(Get-Location).Path',
  '"$PSScriptRoot/data"',
  '[datetime]::Now',
  '$PSScriptRoot',
  '(1 + 2)',
  '@(Get-Thing)',
  '$Global:Preset',
);

function validation(type: TypeChoice, name: string): fc.Arbitrary<string[]> {
  const category = type.category === 'array' ? type.element : type.category;
  const options: fc.Arbitrary<string>[] = [
    // An alias declared twice makes PowerShell refuse the command: one per parameter.
    fc.constantFrom('[ValidateNotNullOrEmpty()]', '[AllowNull()]', `[Alias('${name}Alias')]`),
  ];
  if (category === 'string' || category === 'other') {
    options.push(
      fc.constantFrom(
        "[ValidateSet('red', 'green', 'blue')]",
        "[ValidateSet('Alpha', 'beta', IgnoreCase = $false)]",
        "[ValidatePattern('^[a-z]+$')]",
        "[ValidatePattern('^\\d{3}-\\d{4}$')]",
        "[ValidatePattern('^A', Options = 'None')]",
        '[ValidateLength(1, 20)]',
        '[ValidateLength(0, 5)]',
        '[ValidateNotNullOrWhiteSpace()]',
      ),
    );
  }
  if (category === 'integer' || category === 'number') {
    options.push(
      fc.constantFrom(
        '[ValidateRange(1, 100)]',
        '[ValidateRange(0, 0x20)]',
        '[ValidateRange(-5, 5)]',
        "[ValidateRange('Positive')]",
        "[ValidateRange('NonNegative')]",
        '[ValidateRange([System.Management.Automation.ValidateRangeKind]::Negative)]',
        '[ValidateSet(1, 2, 3)]',
      ),
    );
  }
  if (category === 'number') options.push(fc.constant('[ValidateRange(0.5, 2.5)]'));
  if (type.category === 'array')
    options.push(fc.constantFrom('[ValidateCount(1, 3)]', '[ValidateCount(0, 10)]'));
  return fc.uniqueArray(fc.oneof(...options), { maxLength: 2 });
}

interface GeneratedParameter {
  name: string;
  type: TypeChoice;
  parameterAttribute: string | undefined;
  validation: string[];
  default: string | undefined;
  /** Where the parameter's description comes from. */
  documented: 'help' | 'comment-above' | 'comment-inside' | 'help-message' | 'none';
  description: string;
}

function parameter(name: string): fc.Arbitrary<GeneratedParameter> {
  return fc.constantFrom(...TYPES).chain((type) =>
    fc.record({
      name: fc.constant(name),
      type: fc.constant(type),
      parameterAttribute: fc.option(
        fc.constantFrom(
          '[Parameter(Mandatory)]',
          '[Parameter(Mandatory = $true)]',
          '[Parameter(Mandatory=$false)]',
          '[Parameter()]',
          '[Parameter(Position = 0)]',
          '[parameter(mandatory, ValueFromPipeline)]',
          "[Parameter(ParameterSetName = 'ById')]",
          "[Parameter(Mandatory, ParameterSetName = 'ByName')]",
          "[Parameter(ParameterSetName = 'ByName')]",
        ),
        { nil: undefined, freq: 2 },
      ),
      validation: validation(type, name),
      default: fc.option(
        fc.oneof(
          { weight: 3, arbitrary: constantDefault(type.category) },
          { weight: 1, arbitrary: computedDefault },
        ),
        { nil: undefined, freq: 2 },
      ),
      documented: fc.constantFrom(
        'help',
        'help',
        'comment-above',
        'comment-inside',
        'help-message',
        'none',
      ),
      description: sentence,
    }),
  );
}

interface HelpContent {
  synopsis: string | undefined;
  description: string | undefined;
  notes: string | undefined;
  /** `.synopsis` instead of `.SYNOPSIS`. */
  lowerCase: boolean;
  /** Each help line as a `#` comment instead of one `<# #>` block. */
  lineComments: boolean;
  /** An `.EXAMPLE` calling the command: named arguments, the first ones positional, or prefixes. */
  example: 'none' | 'named' | 'positional' | 'prefix';
  /** A `.OUTPUTS` section describing a hashtable's properties. */
  outputs: boolean;
}

/** Stands for a script's own name in its examples until the corpus numbers the file. */
const SCRIPT_NAME = '__SCRIPT__';

/** A constant argument of each kind, written as on a command line. */
function exampleValue(p: GeneratedParameter): string {
  if (p.type.category === 'switch') return '';
  if (p.type.category === 'array') return p.type.element === 'integer' ? '1,2' : 'red,blue';
  const values: Record<TypeChoice['category'], string> = {
    string: "'red'",
    integer: '3',
    number: '2.5',
    boolean: '$true',
    switch: '',
    array: '',
    object: '@{ a = 1 }',
    other: 'plain',
  };
  return values[p.type.category];
}

function renderExample(
  style: HelpContent['example'],
  parameters: readonly GeneratedParameter[],
  command: string,
): string {
  const usable = parameters.filter((p) => p.type.text !== 'scriptblock');
  const parts = usable.map((p, index) => {
    const value = exampleValue(p);
    if (p.type.category === 'switch') return index % 2 === 0 ? `-${p.name}` : `-${p.name}:$false`;
    if (style === 'positional' && index < 2) return value;
    const name = style === 'prefix' ? p.name.slice(0, 3) : p.name;
    return `-${name} ${value}`;
  });
  const call = command === SCRIPT_NAME && style === 'positional' ? `./${command}.ps1` : command;
  return [call, ...parts].join(' ');
}

const NOTES = fc.constantFrom(
  'ReadOnlyHint: true',
  'ReadOnlyHint: false\nIdempotentHint: true',
  'DestructiveHint: true',
  'OpenWorldHint: no',
  'ReadOnlyHint: This tool does not change anything.',
  'Written for the parity suite.',
  'LongRunning: true\nProgressResetsTimeout: true',
);

const helpContent: fc.Arbitrary<HelpContent> = fc.record({
  synopsis: fc.option(sentence, { nil: undefined, freq: 8 }),
  description: fc.option(
    fc.array(sentence, { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n')),
    { nil: undefined, freq: 2 },
  ),
  notes: fc.option(NOTES, { nil: undefined, freq: 3 }),
  lowerCase: fc.boolean(),
  lineComments: fc.boolean(),
  example: fc.constantFrom('none', 'none', 'named', 'named', 'positional', 'prefix'),
  outputs: fc.boolean(),
});

function renderHelp(
  help: HelpContent,
  parameters: readonly GeneratedParameter[],
  indent: string,
  command = SCRIPT_NAME,
): string {
  const keyword = (word: string) => `.${help.lowerCase ? word.toLowerCase() : word}`;
  const lines: string[] = [];
  if (help.synopsis !== undefined) lines.push(keyword('SYNOPSIS'), help.synopsis, '');
  if (help.description !== undefined)
    lines.push(keyword('DESCRIPTION'), ...help.description.split('\n'), '');
  for (const p of parameters) {
    if (p.documented === 'help') lines.push(`${keyword('PARAMETER')} ${p.name}`, p.description, '');
  }
  if (help.notes !== undefined) lines.push(keyword('NOTES'), ...help.notes.split('\n'), '');
  if (help.outputs)
    lines.push(
      keyword('OUTPUTS'),
      'System.Collections.Hashtable',
      '    ok     <bool>    Whether it worked.',
      '    label  <string>  Optional. What it worked on.',
      '',
    );
  if (help.example !== 'none')
    lines.push(
      keyword('EXAMPLE'),
      renderExample(help.example, parameters, command),
      'Runs it once.',
      '',
    );
  if (lines.length === 0) lines.push(keyword('EXAMPLE'), 'Get-Thing', '');
  if (help.lineComments) return lines.map((line) => `${indent}# ${line}`.trimEnd()).join('\n');
  return [
    `${indent}<#`,
    ...lines.map((line) => (line === '' ? '' : `${indent}${line}`)),
    `${indent}#>`,
  ].join('\n');
}

function renderParameter(p: GeneratedParameter, indent: string): string {
  const lines: string[] = [];
  if (p.documented === 'comment-above') lines.push(`${indent}# ${p.description}`);
  if (p.parameterAttribute !== undefined) {
    const attribute =
      p.documented === 'help-message'
        ? p.parameterAttribute.replace(
            /\)\]$/,
            (end) =>
              `${p.parameterAttribute?.endsWith('()]') === true ? '' : ', '}HelpMessage = '${p.description.replaceAll("'", "''")}'${end}`,
          )
        : p.parameterAttribute;
    lines.push(`${indent}${attribute}`);
  } else if (p.documented === 'help-message') {
    lines.push(`${indent}[Parameter(HelpMessage = '${p.description.replaceAll("'", "''")}')]`);
  }
  for (const attribute of p.validation) lines.push(`${indent}${attribute}`);
  const typed = p.type.text === '' ? '' : `[${p.type.text}]`;
  const inline = p.documented === 'comment-inside' ? ` <# ${p.description} #>` : '';
  lines.push(
    `${indent}${typed}${inline}$${p.name}${p.default === undefined ? '' : ` = ${p.default}`}`,
  );
  return lines.join('\n');
}

interface CommandShape {
  help: HelpContent;
  /** Where the help sits: before the param block, at the start of a function body, or at the end. */
  placement: 'before' | 'inside' | 'after' | 'none';
  cmdletBinding: string | undefined;
  /** `[OutputType()]` on the param block: one type, several, or a scalar. */
  outputType: string | undefined;
  parameters: GeneratedParameter[];
  /** Blank lines between a leading help block and what follows. */
  gap: number;
  requiresLine: 'none' | 'glued' | 'apart';
}

const commandShape: fc.Arbitrary<CommandShape> = fc
  .uniqueArray(fc.constantFrom(...NAMES), {
    maxLength: 5,
    comparator: (a, b) => a.toLowerCase() === b.toLowerCase(),
  })
  .chain((names) =>
    fc.record({
      help: helpContent,
      placement: fc.constantFrom('before', 'before', 'before', 'inside', 'after', 'none'),
      cmdletBinding: fc.option(
        fc.constantFrom(
          '[CmdletBinding()]',
          "[CmdletBinding(DefaultParameterSetName = 'ById')]",
          '[CmdletBinding(SupportsShouldProcess)]',
        ),
        { nil: undefined, freq: 2 },
      ),
      outputType: fc.option(
        fc.constantFrom(
          '[OutputType([hashtable])]',
          "[OutputType('System.Collections.Hashtable')]",
          '[OutputType([hashtable], [string])]',
          '[OutputType([string])]\n[OutputType([hashtable])]',
          '[OutputType([int])]',
        ),
        { nil: undefined, freq: 2 },
      ),
      parameters:
        names.length === 0 ? fc.constant([]) : fc.tuple(...names.map((name) => parameter(name))),
      gap: fc.constantFrom(0, 0, 1, 2),
      requiresLine: fc.constantFrom('none', 'none', 'none', 'glued', 'apart'),
    }),
  );

function renderParamBlock(shape: CommandShape, indent: string): string {
  const inner = `${indent}    `;
  const lines: string[] = [];
  if (shape.cmdletBinding !== undefined) lines.push(`${indent}${shape.cmdletBinding}`);
  for (const line of shape.outputType?.split('\n') ?? []) lines.push(`${indent}${line}`);
  if (shape.parameters.length === 0) {
    lines.push(`${indent}param()`);
    return lines.join('\n');
  }
  lines.push(`${indent}param(`);
  lines.push(shape.parameters.map((p) => renderParameter(p, inner)).join(',\n\n'));
  lines.push(`${indent})`);
  return lines.join('\n');
}

const BODY = [
  '$result = [ordered]@{ ok = $true }',
  "if ($PSBoundParameters.Count -gt 0) { 'bound' }",
  'foreach ($key in $PSBoundParameters.Keys) { "$key" }',
  '$result',
].join('\n');

function renderScript(shape: CommandShape): string {
  const parts: string[] = [];
  const help =
    shape.placement === 'none' ? undefined : renderHelp(shape.help, shape.parameters, '');
  // Glued to the help block, #Requires makes it "not help"; a blank line apart it does not.
  if (shape.requiresLine !== 'none')
    parts.push('#Requires -Version 7.0\n', shape.requiresLine === 'apart' ? '\n' : '');
  // A script's help goes before the param block or at the end of the file; "inside" is a
  // function's form, so a script takes it at the top after a blank line.
  if (help !== undefined && shape.placement !== 'after')
    parts.push(help, '\n'.repeat(shape.gap + 1));
  parts.push(renderParamBlock(shape, ''), '\n\n', BODY, '\n');
  if (help !== undefined && shape.placement === 'after') parts.push('\n', help, '\n');
  return parts.join('');
}

function renderFunction(name: string, shape: CommandShape): string {
  const help =
    shape.placement === 'none'
      ? undefined
      : renderHelp(shape.help, shape.parameters, shape.placement === 'before' ? '' : '    ', name);
  const parts: string[] = [];
  if (help !== undefined && shape.placement === 'before')
    parts.push(help, '\n'.repeat(shape.gap + 1));
  parts.push(`function ${name} {\n`);
  if (help !== undefined && shape.placement === 'inside') parts.push(help, '\n');
  parts.push(renderParamBlock(shape, '    '), '\n\n', BODY.replace(/^/gm, '    '), '\n');
  if (help !== undefined && shape.placement === 'after') parts.push('\n', help, '\n');
  parts.push('}\n');
  return parts.join('');
}

const VERBS = ['Get', 'Set', 'New', 'Find', 'Test'] as const;

/** A script: `<Verb>-Gen<i>.ps1` once {@link nameCorpus} numbers it. */
const generatedScript: fc.Arbitrary<GeneratedPowerShellFile> = fc
  .tuple(fc.constantFrom(...VERBS), commandShape)
  .map(([verb, shape]) => ({
    kind: 'script' as const,
    name: `${verb}-Gen`,
    content: renderScript(shape),
  }));

/** A module of one to three exported functions, with an export line half the time. */
const generatedModule: fc.Arbitrary<GeneratedPowerShellFile> = fc
  .tuple(fc.array(commandShape, { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([shapes, exportLine]) => {
    const names = shapes.map((_, i) => `${VERBS[i % VERBS.length]}-GenFn${i}`);
    const functions = shapes.map((shape, i) => renderFunction(names[i] as string, shape));
    const exported = exportLine ? `\nExport-ModuleMember -Function ${names.join(', ')}\n` : '';
    return {
      kind: 'module' as const,
      name: 'GenModule',
      content: `${functions.join('\n')}${exported}`,
    };
  });

/**
 * `scripts` scripts and `modules` modules, named uniquely by their index, from a fixed seed so
 * a difference is replayed by running the suite again.
 */
export function generateParityCorpus(options: {
  scripts: number;
  modules: number;
  seed: number;
}): GeneratedPowerShellFile[] {
  const scripts = fc.sample(generatedScript, { numRuns: options.scripts, seed: options.seed });
  const modules = fc.sample(generatedModule, { numRuns: options.modules, seed: options.seed + 1 });
  return [
    ...scripts.map((file, i) => {
      const name = `${file.name}${String(i).padStart(5, '0')}`;
      return { ...file, name: `${name}.ps1`, content: file.content.replaceAll(SCRIPT_NAME, name) };
    }),
    ...modules.map((file, i) => ({
      ...file,
      name: `${file.name}${String(i).padStart(4, '0')}.psm1`,
    })),
  ];
}
