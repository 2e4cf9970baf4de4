import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateArguments } from '@toolpack/core';
import type { JsonSchema } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { describePowerShellModule } from './describe-module.ts';
import { describePowerShellScriptContent } from './describe-script.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

function script(content: string) {
  return describePowerShellScriptContent({ path: '/x/Get-Thing.ps1', content });
}

const HELP = '<#\n.SYNOPSIS\nGets a thing.\n.OUTPUTS\n';

describe('output schemas from [OutputType()]', () => {
  it('reads a hashtable described by .OUTPUTS property lines, Optional ones not required', () => {
    const path = `${fixtures}scripts/Get-WidgetReport.ps1`;
    const result = describePowerShellScriptContent({ path, content: readFileSync(path, 'utf8') });
    const tool = result.tools[0];
    expect(tool?.outputSchema).toEqual({
      type: 'object',
      properties: {
        Store: { type: 'string', description: 'The store the report is about.' },
        Count: { type: 'integer', description: 'How many widgets it holds.' },
        Tags: { type: 'array', items: { type: 'string' }, description: 'The tags seen, in order.' },
        Slowest: { type: 'string', description: 'The slowest widget; only with -Detailed.' },
        Taken: { type: 'string', description: 'When the report was made.' },
      },
      required: ['Store', 'Count', 'Tags', 'Taken'],
    });
    expect(tool?.longRunning).toBe(true);
    expect(tool?.progressResetsTimeout).toBe(true);
  });

  it('reads a class of the module: public instance properties, nullable references, nested classes two deep', async () => {
    const result = await describePowerShellModule({
      path: `${fixtures}modules/OutputTypes/OutputTypes.psm1`,
    });
    const schema = result.tools.find((t) => t.originalName === 'Get-ClassWidget')?.outputSchema;
    expect(schema).toEqual({
      type: 'object',
      properties: {
        Name: { type: ['string', 'null'], description: "The widget's name." },
        Count: { type: 'integer', description: 'How many are in stock.' },
        Tags: { type: ['array', 'null'], items: { type: 'string' } },
        Retired: { type: 'boolean' },
        // host.ps1 writes DateTime with the 'o' format: no offset for an unspecified kind.
        Made: { type: 'string' },
        Owner: {
          type: ['object', 'null'],
          properties: { Name: { type: ['string', 'null'] }, Manager: { type: ['string', 'null'] } },
          required: ['Name', 'Manager'],
        },
      },
      required: ['Name', 'Count', 'Tags', 'Retired', 'Made', 'Owner'],
    });
    // What the runner returns for the fixture's widget (see the e2e test) fits.
    expect(
      validateArguments(schema as JsonSchema, {
        Name: 'gear',
        Count: 3,
        Tags: ['a', 'b'],
        Retired: false,
        Made: '2024-01-02T00:00:00.0000000',
        Owner: { Name: 'Ada', Manager: 'WidgetOwner' },
      }).valid,
    ).toBe(true);
  });

  it('gives no schema and no diagnostic for scalar types or an undescribed hashtable', async () => {
    const result = await describePowerShellModule({
      path: `${fixtures}modules/OutputTypes/OutputTypes.psm1`,
    });
    expect(result.tools.find((t) => t.originalName === 'Get-WidgetName')?.outputSchema).toBe(
      undefined,
    );
    const bare = script(`${HELP}x\n#>\n[OutputType([hashtable])]\nparam()\n@{}`);
    expect(bare.tools[0]?.outputSchema).toBeUndefined();
    expect(bare.diagnostics.filter((d) => d.code === 'W_OUTPUT_TYPE')).toEqual([]);
  });

  it('warns with file:line about several or unknown types, and refuses a class literal in a script', async () => {
    const result = await describePowerShellModule({
      path: `${fixtures}modules/OutputTypes/OutputTypes.psm1`,
    });
    const warnings = result.diagnostics
      .filter((d) => d.code === 'W_OUTPUT_TYPE')
      .map((d) => `${d.line} ${d.message}`);
    expect(warnings).toEqual([
      expect.stringMatching(/^47 .*several output types \(\[Widget\], \[string\]\)/),
      expect.stringMatching(/^57 \[OutputType\(\[System.IO.FileInfo\]\)\].*no output schema/),
    ]);
    const literal = script(
      `${HELP}x\n#>\n[OutputType([Thing])]\nparam()\nclass Thing { [string] $A }\n[Thing]::new()`,
    );
    expect(literal.tools).toEqual([]);
    expect(literal.diagnostics.find((d) => d.code === 'E_UNRESOLVED_TYPE')?.hint).toBe(
      "Write the type name as a string: [OutputType('Thing')].",
    );
    const quoted = script(
      `${HELP}x\n#>\n[OutputType('Thing')]\nparam()\nclass Thing { [string] $A; [int] $B }\n[Thing]::new()`,
    );
    expect(quoted.tools[0]?.outputSchema?.required).toEqual(['A', 'B']);
  });

  it('warns about a property type it cannot describe and about .OUTPUTS without [OutputType()]', () => {
    const unknown = script(
      `${HELP}hashtable\n  File <System.IO.FileInfo> The file.\n#>\n[OutputType('System.Collections.Hashtable')]\nparam()\n@{}`,
    );
    expect(unknown.tools[0]?.outputSchema).toBeUndefined();
    expect(unknown.diagnostics.find((d) => d.code === 'W_OUTPUT_TYPE')?.line).toBe(6);
    const missing = script(`${HELP}hashtable\n  A <int> One.\n#>\nparam()\n@{}`);
    expect(missing.tools[0]?.outputSchema).toBeUndefined();
    expect(missing.diagnostics.find((d) => d.code === 'W_OUTPUT_TYPE')?.hint).toContain(
      '[OutputType([hashtable])]',
    );
    const ordered = script(
      `${HELP}ordered\n  A <int> One.\n#>\n[OutputType([ordered])]\nparam()\n[ordered]@{ A = 1 }`,
    );
    expect(ordered.tools[0]?.outputSchema).toEqual({
      type: 'object',
      properties: { A: { type: 'integer', description: 'One.' } },
      required: ['A'],
    });
  });

  it('reads the .NOTES opt-ins, false words, and warns about a near miss with its line', () => {
    const result = script(
      `<#\n.SYNOPSIS\nGets a thing.\n.NOTES\nLongRunning: no\nProgressResetsTimeout:\nProgresResetsTimeout: true\nAuthor: someone\n#>\nparam()`,
    );
    expect(result.tools[0]?.longRunning).toBe(false);
    expect(result.tools[0]?.progressResetsTimeout).toBe(true);
    const warnings = result.diagnostics.filter((d) => d.code === 'W_UNKNOWN_OPTION');
    expect(warnings.map((d) => [d.line, d.hint])).toEqual([
      [7, 'Did you mean ProgressResetsTimeout?'],
    ]);
  });

  it('matches a .OUTPUTS type line in its full or short spelling among several sections', () => {
    const result = script(
      `${HELP}System.String\n  Ignored <int> Not this one.\n.OUTPUTS\n[System.Management.Automation.PSCustomObject]\n  Name <string> The name.\n#>\n[OutputType([pscustomobject])]\nparam()\n[pscustomobject]@{ Name = 'a' }`,
    );
    expect(result.tools[0]?.outputSchema).toEqual({
      type: 'object',
      properties: { Name: { type: 'string', description: 'The name.' } },
      required: ['Name'],
    });
  });

  it('finds a class in another file of the module by its string name, and refuses a type literal of it', async () => {
    const result = await describePowerShellModule({
      path: `${fixtures}modules/ClassFiles/ClassFiles.psm1`,
    });
    const byName = new Map(result.tools.map((tool) => [tool.originalName, tool]));
    expect(byName.get('Get-FileWidget')?.outputSchema).toEqual({
      type: 'object',
      properties: { Name: { type: ['string', 'null'] }, Count: { type: 'integer' } },
      required: ['Name', 'Count'],
    });
    expect(byName.has('Get-FileWidgetByLiteral')).toBe(false);
    const warning = result.diagnostics.find((d) => d.code === 'E_UNRESOLVED_TYPE');
    expect(warning?.message).toContain('a class of another file of the module');
    expect(warning?.hint).toBe("Write the type name as a string: [OutputType('FileWidget')].");
  });
});
