import { describe, expect, it } from 'vitest';
import {
  findFunctionHelp,
  findParameterComments,
  findScriptHelp,
  joinHelpDescription,
  parseCommentHelp,
} from './comment-help.ts';
import { readPowerShell } from './reader.ts';

describe('parseCommentHelp', () => {
  it('reads a block comment: keywords in any case, dedented sections', () => {
    const help = parseCommentHelp(
      [
        '<#',
        '.synopsis',
        '    Gets a widget.',
        '',
        '.Description',
        '    First line.',
        '      Indented more.',
        '.PARAMETER Name',
        '    The name.',
        '.PARAMETER name',
        '    Ignored: the first section for a name wins.',
        '.EXAMPLE',
        '    Get-Widget -Name x',
        '.EXAMPLE',
        '    Get-Widget',
        '.NOTES',
        '    ReadOnlyHint: true',
        '.LINK',
        '    https://example.com',
        '#>',
      ].join('\n'),
      { line: 10 },
    );
    expect(help).toEqual({
      synopsis: 'Gets a widget.',
      description: 'First line.\n  Indented more.',
      parameters: { name: 'The name.' },
      notes: 'ReadOnlyHint: true',
      examples: ['Get-Widget -Name x', 'Get-Widget'],
      outputs: [],
      links: ['https://example.com'],
      lines: {
        start: 10,
        end: 29,
        synopsis: 12,
        description: 15,
        notes: 26,
        examples: [22, 24],
        outputs: [],
        parameters: { name: 18 },
      },
    });
  });

  it('reads consecutive # line comments, also with several #', () => {
    const help = parseCommentHelp('# .SYNOPSIS\n#   Says hi.\n## .PARAMETER Who\n##   The person.');
    expect(help?.synopsis).toBe('Says hi.');
    expect(help?.parameters).toEqual({ who: 'The person.' });
  });

  it('reads text without comment markers', () => {
    expect(parseCommentHelp('.SYNOPSIS\nPlain.')?.synopsis).toBe('Plain.');
  });

  it('is not help when PowerShell would not take it as help', () => {
    expect(parseCommentHelp('<# just a comment #>')).toBeUndefined();
    expect(parseCommentHelp('<#\n.SYNOPSIS Text on the keyword line.\n#>')).toBeUndefined();
    expect(parseCommentHelp('<#\n.SYNOPSIS\nx\n.FOO\ny\n#>')).toBeUndefined();
    expect(parseCommentHelp('<#\nLeading text\n.SYNOPSIS\nx\n#>')).toBeUndefined();
  });

  it('ends a section at any keyword-like line, even an unknown one', () => {
    expect(parseCommentHelp('<#\n.SYNOPSIS\none\n.PARAMETER\n#>')).toBeUndefined();
  });
});

describe('findScriptHelp', () => {
  it('takes the first help block at the top, skipping plain comments separated by a blank line', () => {
    const document = readPowerShell('# Copyright me\n\n<#\n.SYNOPSIS\nTop.\n#>\nparam()');
    expect(findScriptHelp(document).help?.synopsis).toBe('Top.');
  });

  it('takes help at the end of the script', () => {
    const document = readPowerShell('param()\nGet-Date\n\n<#\n.SYNOPSIS\nEnd.\n#>\n');
    expect(findScriptHelp(document).help?.synopsis).toBe('End.');
  });

  it('leaves help within one blank line of an opening function to that function', () => {
    const near = readPowerShell('<#\n.SYNOPSIS\nNear.\n#>\n\nfunction f { }');
    const search = findScriptHelp(near);
    expect(search.help).toBeUndefined();
    expect(search.rejections[0]?.reason).toContain('first statement');
    const far = readPowerShell('<#\n.SYNOPSIS\nFar.\n#>\n\n\nfunction f { }');
    expect(findScriptHelp(far).help?.synopsis).toBe('Far.');
  });

  it('does not apply the function rule to scripts with named blocks', () => {
    const document = readPowerShell('<#\n.SYNOPSIS\nNamed.\n#>\nbegin { }\nend { }');
    expect(findScriptHelp(document).help?.synopsis).toBe('Named.');
  });

  it('explains a rejected block', () => {
    const search = findScriptHelp(
      readPowerShell('#Requires -Version 7\n<#\n.SYNOPSIS\nx\n#>\nparam()'),
    );
    expect(search.help).toBeUndefined();
    expect(search.rejections).toEqual([
      { reason: 'the text "Requires -Version 7" comes before the first help keyword', line: 1 },
    ]);
  });

  it('finds nothing in a here-string that looks like help', () => {
    expect(
      findScriptHelp(readPowerShell("$x = @'\n<#\n.SYNOPSIS\nno\n#>\n'@")).help,
    ).toBeUndefined();
  });
});

describe('findFunctionHelp', () => {
  const source = [
    '<#',
    '.SYNOPSIS',
    'Before.',
    '#>',
    'function Get-Before { }',
    '',
    'function Get-Inside {',
    '  # .SYNOPSIS',
    '  # Inside.',
    '  param()',
    '}',
    '',
    'function Get-End {',
    '  param()',
    '  <#',
    '  .SYNOPSIS',
    '  End.',
    '  #>',
    '}',
    '',
    '<#',
    '.SYNOPSIS',
    'Too far.',
    '#>',
    '',
    '',
    'function Get-None { }',
  ].join('\n');
  const document = readPowerShell(source);

  it('finds help before the function, at the start of its body, or at its end', () => {
    const synopses = document.functions.map((fn) => findFunctionHelp(document, fn).help?.synopsis);
    expect(synopses).toEqual(['Before.', 'Inside.', 'End.', undefined]);
  });
});

describe('findParameterComments', () => {
  it('takes comments above, inside and after a parameter', () => {
    const document = readPowerShell(
      'param(\n  # above a\n  [string]$a,\n  [Parameter()]\n  # inside b\n  [int]$b,\n  $c # after c\n)',
    );
    expect(findParameterComments(document, document.paramBlock?.parameters ?? [])).toEqual([
      'above a',
      'inside b',
      'after c',
    ]);
  });

  it('gives a comment trailing one parameter to the next one, as PowerShell does', () => {
    const document = readPowerShell('param(\n  $a, # about a?\n  $b\n)');
    expect(findParameterComments(document, document.paramBlock?.parameters ?? [])).toEqual([
      '',
      'about a?',
    ]);
  });
});

describe('joinHelpDescription', () => {
  it('joins a synopsis and a description with a blank line', () => {
    expect(joinHelpDescription('Gets a widget.', 'Reads the store.')).toBe(
      'Gets a widget.\n\nReads the store.',
    );
    expect(joinHelpDescription(undefined, 'Reads the store.')).toBe('Reads the store.');
    expect(joinHelpDescription('Gets a widget.', '  ')).toBe('Gets a widget.');
  });

  it('does not repeat a synopsis the description opens with', () => {
    expect(joinHelpDescription('Gets a widget.', 'Gets a widget. From the store.')).toBe(
      'Gets a widget. From the store.',
    );
    expect(joinHelpDescription('Gets a widget', 'Gets a widget.\nFrom the store.')).toBe(
      'Gets a widget.\nFrom the store.',
    );
    expect(joinHelpDescription('Gets  a widget.', 'Gets a widget\n\nMore.')).toBe(
      'Gets a widget\n\nMore.',
    );
    expect(joinHelpDescription('Gets a widget.', 'Gets a widget.')).toBe('Gets a widget.');
  });

  it('keeps a synopsis that is only the start of a longer sentence', () => {
    expect(joinHelpDescription('Gets a widget', 'Gets a widget and its parts.')).toBe(
      'Gets a widget\n\nGets a widget and its parts.',
    );
    expect(joinHelpDescription('Gets a widget.', 'Gets a widgets list.')).toBe(
      'Gets a widget.\n\nGets a widgets list.',
    );
  });
});
