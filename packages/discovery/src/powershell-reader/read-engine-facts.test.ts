import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeModuleFunction } from './describe-module.ts';
import type { EngineFacts } from './engine-exports.ts';
import { findDynamicParamBlock } from './read-engine-facts.ts';
import { readPowerShell } from './reader.ts';

const folder = fileURLToPath(new URL('./fixtures/modules/DynamicParameters/', import.meta.url));
const modulePath = join(folder, 'DynamicParameters.psd1');
const psm1 = join(folder, 'DynamicParameters.psm1');
const document = readPowerShell(readFileSync(psm1, 'utf8'));
const invokeGear = document.functions.find((fn) => fn.name === 'Invoke-Gear')!;

/** What list-module-exports.ps1 answers for Invoke-Gear with Gears.dll loaded. */
const FACTS: EngineFacts = {
  dynamic: {
    line: 22,
    parameters: [
      "[Parameter(Mandatory = $true)][Alias('Rpm')][ValidateRange(1, 10)][int]$Speed",
      "[Parameter()][ValidateSet('Matte', 'Smith''s gloss')][string]$Finish",
    ],
    reads: [],
  },
  enums: [
    { parameter: 'Mode', names: ['Slow', 'Fast', 'Reverse'], flags: false },
    { parameter: 'Coating', names: ['None', 'Oil', 'Wax', 'Paint'], flags: true },
  ],
};

const describeGear = (facts?: EngineFacts) =>
  describeModuleFunction(
    { fn: invokeGear, document, path: psm1 },
    modulePath,
    [],
    undefined,
    facts,
  );

describe('findDynamicParamBlock', () => {
  it("finds the line of a function's dynamicparam block", () => {
    expect(findDynamicParamBlock(document, invokeGear)).toBe(22);
  });

  it('ignores a dynamicparam word that is not a block of the function itself', () => {
    const other = readPowerShell(
      'function Get-X {\n  param()\n  end { $b = { dynamicparam { } }; Write-Output dynamicparam }\n}\n',
    );
    expect(findDynamicParamBlock(other, other.functions[0]!)).toBeUndefined();
  });
});

describe('a function described with the engine facts', () => {
  it('has its dynamic parameters, with their help, sets and validation', () => {
    const { tool, diagnostics } = describeGear(FACTS);
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    const properties = tool?.inputSchema.properties ?? {};
    expect(Object.keys(properties)).toEqual(['Name', 'Mode', 'Coating', 'Speed', 'Finish']);
    expect(properties.Speed).toEqual({
      type: 'integer',
      description: 'Turns a minute: a parameter the dynamicparam block declares.',
      minimum: 1,
      maximum: 10,
    });
    expect(properties.Finish).toMatchObject({ enum: ['Matte', "Smith's gloss"] });
    expect(tool?.inputSchema.required).toEqual(['Name', 'Speed']);
  });

  it("turns the compiled enums into the schema as the reader's own enums are", () => {
    const properties = describeGear(FACTS).tool?.inputSchema.properties ?? {};
    expect(properties.Mode).toMatchObject({
      enum: ['Slow', 'Fast', 'Reverse'],
      'x-enumIgnoreCase': true,
      default: 'Slow',
    });
    // A [Flags] enum binds a comma list of its names, as the static reader's framework flags enums do.
    const coating = new RegExp(properties.Coating?.pattern as string, 'u');
    expect(coating.test('oil, Wax')).toBe(true);
    expect(coating.test('Oil, Glue')).toBe(false);
    expect(properties.Coating?.enum).toBeUndefined();
  });

  it('without facts, has only its param block, and the enums are strings', () => {
    const { tool, diagnostics } = describeGear();
    // Its help documents the dynamic parameters, which the unread block may declare.
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    const properties = tool?.inputSchema.properties ?? {};
    expect(Object.keys(properties)).toEqual(['Name', 'Mode', 'Coating']);
    expect(properties.Mode).toEqual({
      type: 'string',
      description: "How it turns (an enum of the module's own assembly).",
      default: 'Slow',
    });
  });

  it("leaves the reader's own enums to the reader", () => {
    const own = readPowerShell(
      'enum Shade { Light; Dark }\nfunction Get-X {\n  <# .SYNOPSIS\n  Gets X.\n  .PARAMETER Shade\n  Its shade.\n  .PARAMETER Day\n  Its day.\n  #>\n  param([Shade]$Shade, [DayOfWeek]$Day)\n}\n',
    );
    const { tool } = describeModuleFunction(
      { fn: own.functions[0]!, document: own, path: psm1 },
      modulePath,
      [],
      undefined,
      {
        enums: [
          { parameter: 'Shade', names: ['Engine'], flags: false },
          { parameter: 'Day', names: ['Engine'], flags: false },
        ],
      },
    );
    expect(tool?.inputSchema.properties?.Shade?.enum).toEqual(['Light', 'Dark']);
    expect(tool?.inputSchema.properties?.Day?.enum).toContain('Friday');
  });

  it('warns, at the block, when what the block declares may depend on the arguments', () => {
    const { tool, diagnostics } = describeGear({
      ...FACTS,
      dynamic: { ...FACTS.dynamic!, reads: ['Mode', 'PSBoundParameters'] },
    });
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toContain('Speed');
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([
      expect.objectContaining({
        code: 'W_DYNAMIC_PARAMETERS',
        line: 22,
        message: expect.stringContaining('reads $Mode, $PSBoundParameters'),
      }),
    ]);
  });

  it('keeps a declared parameter the engine also reports once', () => {
    const { tool } = describeGear({
      dynamic: {
        line: 22,
        parameters: ['[Parameter()][int]$Name', ...FACTS.dynamic!.parameters],
        reads: [],
      },
    });
    expect(tool?.inputSchema.properties?.Name).toMatchObject({ type: 'string' });
  });

  it('refuses the function, at its dynamicparam line, when the facts do not read as parameters', () => {
    const { tool, diagnostics } = describeGear({
      dynamic: { line: 22, parameters: ['[Parameter(][int]$Speed'], reads: [] },
    });
    expect(tool).toBeUndefined();
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'E_ENGINE_PARAMETERS', path: psm1, line: 22 }),
    ]);
  });
});
