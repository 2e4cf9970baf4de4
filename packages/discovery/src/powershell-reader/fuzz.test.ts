import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_NAME_PATTERN } from '@toolpack/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyHelpLeniency } from '../lenient-help.ts';
import type { SourceResult } from '../types.ts';
import { parseCommentHelp } from './comment-help.ts';
import { describePowerShellModule } from './describe-module.ts';
import { parsePowerShellManifest } from './parse-module-manifest.ts';
import { describePowerShellScriptContent } from './describe-script.ts';
import { convertDotNetPattern } from './dotnet-regex.ts';
import { readPowerShell } from './reader.ts';
import { fuzzRuns, fuzzTimeout, WORST_CASE_INPUT_MS } from '@toolpack/fuzz-runs';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

function filesUnder(folder: string, pattern: RegExp): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => pattern.test(name))
    .map((name) => readFileSync(join(folder, name), 'utf8'));
}

const scripts = [
  ...filesUnder(join(fixtures, 'scripts'), /\.ps1$/),
  ...filesUnder(join(fixtures, 'valid-syntax'), /\.ps1$/),
  ...filesUnder(join(fixtures, 'parity', 'scripts'), /\.ps1$/),
];
const moduleFiles = filesUnder(join(fixtures, 'modules'), /\.psm1$/);
const manifests = filesUnder(join(fixtures, 'modules'), /\.psd1$/);

/** The pieces PowerShell structure is made of, so random input reaches the interesting paths. */
const POWERSHELL_PIECES = [
  'param(',
  ')',
  '(',
  '[',
  ']',
  '{',
  '}',
  '@(',
  '@{',
  '$(',
  ',',
  ';',
  '=',
  '\n',
  '\r\n',
  ' ',
  '\t',
  '`',
  '`\n',
  "'",
  '"',
  "@'\n",
  "\n'@",
  '@"\n',
  '\n"@',
  '#',
  '<#',
  '#>',
  '.SYNOPSIS\n',
  '.PARAMETER x\n',
  '.NOTES\n',
  'ReadOnlyHint: true\n',
  '[Parameter(Mandatory)]',
  '[string]',
  '[int[]]',
  '[ValidateSet(',
  "'a'",
  '$x',
  '$true',
  'function ',
  'Get-X',
  'Export-ModuleMember -Function ',
  '. ',
  '$PSScriptRoot',
  '-5',
  '0x1F',
  '[CmdletBinding()]',
  '[ValidatePattern(',
  "'(?i)^a+$'",
  '[ValidateRange(',
  '1, 10',
  'ParameterSetName=',
  "'A'",
  '$null',
  '"$(',
  '${',
];

const powerShellish = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...POWERSHELL_PIECES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
    ),
    {
      maxLength: 60,
    },
  )
  .map((pieces) => pieces.join(''));

type Mutation = {
  kind: 'delete' | 'insert' | 'duplicate';
  at: number;
  length: number;
  text: string;
};

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('delete', 'insert', 'duplicate'),
  at: fc.nat(),
  length: fc.integer({ min: 1, max: 12 }),
  text: fc.oneof(fc.constantFrom(...POWERSHELL_PIECES), fc.string({ maxLength: 3 })),
});

function mutate(source: string, mutations: readonly Mutation[]): string {
  let text = source;
  for (const { kind, at, length, text: inserted } of mutations) {
    const position = text.length === 0 ? 0 : at % (text.length + 1);
    if (kind === 'delete') text = text.slice(0, position) + text.slice(position + length);
    else if (kind === 'insert') text = text.slice(0, position) + inserted + text.slice(position);
    else
      text =
        text.slice(0, position) + text.slice(position, position + length) + text.slice(position);
  }
  return text;
}

function mutated(sources: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...sources), fc.array(mutation, { minLength: 1, maxLength: 6 }))
    .map(([source, mutations]) => mutate(source, mutations));
}

function expectWellFormed(result: SourceResult, options: { singleTool?: boolean } = {}): void {
  for (const diagnostic of result.diagnostics) {
    expect(['error', 'warning', 'info']).toContain(diagnostic.severity);
    expect(diagnostic.code).toMatch(/^[EWI]_[A-Z_]+$/);
    expect(typeof diagnostic.message).toBe('string');
    if (diagnostic.line !== undefined)
      expect(Number.isInteger(diagnostic.line) && diagnostic.line >= 1).toBe(true);
  }
  for (const tool of result.tools) {
    expect(tool.name).toMatch(TOOL_NAME_PATTERN);
    expect(tool.description).not.toBe('');
    expect(tool.inputSchema.type).toBe('object');
  }
  // A script's tool only comes out when the script has no errors (a module's other functions may have some).
  if (options.singleTool === true && result.tools.length > 0) {
    expect(result.tools).toHaveLength(1);
    // Undescribed parameters alone leave the tool built and marked: refused unless help is lenient.
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.filter((d) => d.code !== 'E_PARAMETER_NO_DESCRIPTION')).toEqual([]);
    expect(applyHelpLeniency(result, false).tools).toHaveLength(errors.length === 0 ? 1 : 0);
  }
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
}

function timed<T>(run: () => T): T {
  const start = performance.now();
  const value = run();
  expect(performance.now() - start).toBeLessThan(WORST_CASE_INPUT_MS);
  return value;
}

describe('fuzz: scripts', { timeout: fuzzTimeout() }, () => {
  it('describes random PowerShell-like text with diagnostics only', () => {
    fc.assert(
      fc.property(powerShellish, (content) => {
        expectWellFormed(
          timed(() => describePowerShellScriptContent({ path: 'Fuzz-Me.ps1', content })),
          { singleTool: true },
        );
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('describes arbitrary unicode text with diagnostics only', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (content) => {
        expectWellFormed(
          timed(() => describePowerShellScriptContent({ path: 'x.ps1', content })),
          { singleTool: true },
        );
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('describes mutated valid scripts with diagnostics only', () => {
    fc.assert(
      fc.property(mutated(scripts), (content) => {
        expectWellFormed(
          timed(() => describePowerShellScriptContent({ path: 'Mutant.ps1', content })),
          { singleTool: true },
        );
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });
});

describe('fuzz: modules', { timeout: fuzzTimeout() }, () => {
  it('reads mutated module files with diagnostics only', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(moduleFiles), async (content) => {
        const start = performance.now();
        const result = await describePowerShellModule({
          path: '/virtual/Fuzz.psm1',
          readFile: async (path) => {
            if (path === '/virtual/Fuzz.psm1') return content;
            throw Object.assign(new Error('not found'), { code: 'ENOENT' });
          },
        });
        expect(performance.now() - start).toBeLessThan(WORST_CASE_INPUT_MS);
        expectWellFormed(result);
      }),
      { numRuns: fuzzRuns(800) },
    );
  });

  it('reads mutated manifests with diagnostics only', () => {
    fc.assert(
      fc.property(mutated(manifests), (content) => {
        const result = timed(() => parsePowerShellManifest({ path: 'Fuzz.psd1', content }));
        expectWellFormed({ tools: [], diagnostics: result.diagnostics });
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });
});

describe('fuzz: building blocks', { timeout: fuzzTimeout() }, () => {
  it('reads any text without throwing', () => {
    fc.assert(
      fc.property(fc.oneof(powerShellish, fc.string({ maxLength: 200 })), (content) => {
        const document = timed(() => readPowerShell(content));
        expect(document.tokens.at(-1)?.kind).toBe('end');
        timed(() => parseCommentHelp(content));
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('converts any pattern to a valid ECMAScript pattern or to nothing', () => {
    const regexish = fc
      .array(
        fc.oneof(
          fc.constantFrom(
            '\\',
            '[',
            ']',
            '(',
            ')',
            '(?',
            '{',
            '}',
            '^',
            '$',
            '-',
            'a',
            'Z',
            'é',
            '\\d',
            '\\p{L}',
            '(?i)',
            '?',
            '*',
            '+',
            '|',
            ',',
            '1',
          ),
          fc.string({ maxLength: 2 }),
        ),
        {
          maxLength: 30,
        },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(regexish, fc.boolean(), (pattern, ignoreCase) => {
        const converted = timed(() => convertDotNetPattern(pattern, { ignoreCase }));
        if (converted.pattern !== undefined)
          expect(() => new RegExp(converted.pattern as string, 'u')).not.toThrow();
        else expect(converted.warnings.length).toBeGreaterThan(0);
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });
});
