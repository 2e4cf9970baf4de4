import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readMamlHelp } from './read-maml-help.ts';

const fixtures = fileURLToPath(new URL('./fixtures/external-help/', import.meta.url));

function fixture(path: string): { text: string; file: string } {
  const file = `${fixtures}${path}`;
  return { text: readFileSync(file, 'utf8'), file };
}

function lineOf(text: string, needle: string): number {
  return text.slice(0, text.indexOf(needle)).split('\n').length;
}

const NS =
  'xmlns:maml="http://schemas.microsoft.com/maml/2004/10" xmlns:command="http://schemas.microsoft.com/maml/dev/command/2004/10"';

describe('readMamlHelp', () => {
  it("reads platyPS's ImportExcel help as Get-Help shows it", async () => {
    const { text, file } = fixture('ImportExcel/en/ImportExcel-help.xml');
    const { commands, problem } = await readMamlHelp(text, file);
    expect(problem).toBeUndefined();
    expect([...commands.keys()]).toEqual([
      'convertfrom-exceltosqlinsert',
      'get-excelsheetinfo',
      'remove-worksheet',
    ]);
    // What Get-Help -Full gives after Import-Module ImportExcel (pwsh 7.6.9).
    const info = commands.get('get-excelsheetinfo');
    expect(info?.synopsis).toBe('Get worksheet names and their indices of an Excel workbook.');
    expect(info?.description).toBe(
      'The Get-ExcelSheetInfo cmdlet gets worksheet names and their indices of an Excel workbook.',
    );
    expect(info?.parameters).toEqual({
      path: 'Specifies the path to the Excel file. (This parameter is required.)',
    });
    expect(info?.file).toBe(file);
    expect(info?.lines.start).toBe(lineOf(text, '<command:name>Get-ExcelSheetInfo') - 2);
    const remove = commands.get('remove-worksheet');
    expect(remove?.synopsis).toBe('Removes one or more worksheets from one or more workbooks');
    expect(remove?.description).toBeUndefined();
    expect(Object.keys(remove?.parameters ?? {})).toEqual([
      'fullname',
      'worksheetname',
      'show',
      'whatif',
      'confirm',
    ]);
    // Documented with an empty description, as Get-Help shows it.
    expect(commands.get('convertfrom-exceltosqlinsert')?.parameters.usemssqlsyntax).toBe('');
  });

  it('reads paragraphs, entities, notes and examples, each with its line', async () => {
    const { text, file } = fixture('MamlWidgets/en-US/MamlWidgets-help.xml');
    const { commands } = await readMamlHelp(text, file);
    const widget = commands.get('get-widget');
    expect(widget?.synopsis).toBe('Gets a widget by its name.');
    expect(widget?.description).toBe(
      'Returns the widget with the given name from the store.\n\nIts colour is red unless -Color says otherwise & the store keeps it.',
    );
    expect(widget?.parameters.color).toBe('The colour to give the widget:\n\nred or green.');
    expect(widget?.notes).toBe('ReadOnlyHint: It only reads the store.');
    // The prompt platyPS writes is dropped, as for comment-based help.
    expect(widget?.examples).toEqual([
      'Get-Widget -Name gear\nGets the widget named gear.',
      'Get-Widget -Name gear -Color blue\nBlue is not a colour it takes.',
    ]);
    expect(widget?.lines.examples[0]).toBe(lineOf(text, 'PS C:\\&gt; Get-Widget -Name gear<'));
    expect(widget?.lines.parameters.color).toBe(lineOf(text, '<maml:name>Color') - 1);
    // A name in another case is found under its lower-case key.
    expect(commands.get('rename-widget')?.synopsis).toBe(
      "Renames a widget (from the module's help file).",
    );
  });

  it('reads lists and definition lists, and a later entry for a name replaces an earlier one', async () => {
    const text = `<helpItems schema="maml">
  <command:command ${NS}>
    <command:details><command:name>Get-A</command:name><maml:description><maml:para>First.</maml:para></maml:description></command:details>
  </command:command>
  <command:command ${NS}>
    <command:details><command:name>get-a</command:name><maml:description><maml:para>  Second.  </maml:para><maml:para>Not the synopsis.</maml:para></maml:description></command:details>
    <maml:description>
      <maml:para>Intro.</maml:para>
      <maml:list><maml:listItem><maml:para>one</maml:para></maml:listItem><maml:listItem><maml:para>two</maml:para></maml:listItem></maml:list>
      <maml:list class="ordered"><maml:listItem><maml:para>first</maml:para></maml:listItem></maml:list>
      <maml:definitionList><maml:definitionListItem><maml:term>Term</maml:term><maml:definition><maml:para>Meaning.</maml:para></maml:definition></maml:definitionListItem></maml:definitionList>
    </maml:description>
  </command:command>
  <command:command ${NS}><command:details><command:name>  </command:name></command:details></command:command>
</helpItems>`;
    const { commands, problem } = await readMamlHelp(text, '/x/A-help.xml');
    expect(problem).toBeUndefined();
    expect([...commands.keys()]).toEqual(['get-a']);
    expect(commands.get('get-a')?.synopsis).toBe('Second.');
    expect(commands.get('get-a')?.description).toBe(
      'Intro.\n\n* one\n\n* two\n\n01. first\n\nTerm\nMeaning.',
    );
  });

  it('reads no help from what PowerShell does not load as MAML', async () => {
    const broken = fixture('BrokenHelp/en-US/BrokenHelp-help.xml');
    const malformed = await readMamlHelp(broken.text, broken.file);
    expect(malformed.commands.size).toBe(0);
    expect(malformed.problem?.message).toMatch(/not well-formed XML/);
    expect(malformed.problem?.line).toBeGreaterThan(1);

    const command = `<command:command ${NS}><command:details><command:name>Get-A</command:name><maml:description><maml:para>A.</maml:para></maml:description></command:details></command:command>`;
    const noSchema = await readMamlHelp(`<helpItems>${command}</helpItems>`, '/x/A-help.xml');
    expect(noSchema.commands.size).toBe(0);
    expect(noSchema.problem?.message).toMatch(/schema="maml"/);
    // A .maml file needs no schema attribute.
    const maml = await readMamlHelp(`<helpItems>${command}</helpItems>`, '/x/A.maml');
    expect(maml.commands.get('get-a')?.synopsis).toBe('A.');
    const otherRoot = await readMamlHelp(`<help schema="maml">${command}</help>`, '/x/A-help.xml');
    expect(otherRoot.problem?.message).toMatch(/<helpItems>/);
  });

  it('decodes character references and keeps CDATA as written', async () => {
    const text = `<helpItems schema="maml"><command:command ${NS}><command:details><command:name>Get-A</command:name><maml:description><maml:para>It&#39;s &#x3C;b&#x3E; &amp;#39; <![CDATA[&amp; <x>]]></maml:para></maml:description></command:details></command:command></helpItems>`;
    const help = (await readMamlHelp(text, '/x/A-help.xml')).commands.get('get-a');
    expect(help?.synopsis).toBe("It's <b> &#39; &amp; <x>");
  });

  it('loads nothing from a file with an entity XML does not declare, as XmlDocument refuses it', async () => {
    const entry = (para: string) =>
      `<helpItems schema="maml">\n<command:command ${NS}><command:details><command:name>Get-A</command:name><maml:description><maml:para>${para}</maml:para></maml:description></command:details></command:command></helpItems>`;
    const html = await readMamlHelp(entry('A&nbsp;b'), '/x/A-help.xml');
    expect(html.commands.size).toBe(0);
    expect(html.problem).toEqual({
      message: 'it is not well-formed XML: undefined entity.',
      line: 2,
    });
    // The same text inside CDATA or a comment is no reference.
    const quoted = await readMamlHelp(
      entry('<![CDATA[A&nbsp;b]]><!-- &nbsp; -->'),
      '/x/A-help.xml',
    );
    expect(quoted.commands.get('get-a')?.synopsis).toBe('A&nbsp;b');
  });

  it('takes no synopsis from a details description of bare text, as Get-Help', async () => {
    const text = `<helpItems schema="maml"><command:command ${NS}><command:details><command:name>Get-A</command:name><maml:description>Bare text.</maml:description></command:details><maml:description>Bare description.</maml:description></command:command></helpItems>`;
    const help = (await readMamlHelp(text, '/x/A-help.xml')).commands.get('get-a');
    expect(help?.synopsis).toBeUndefined();
    expect(help?.description).toBe('Bare description.');
  });
});
