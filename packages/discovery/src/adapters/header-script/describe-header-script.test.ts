import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceResult } from '../../types.ts';
import {
  HEADER_SCRIPT_EXTENSIONS,
  describeHeaderScript,
  getCommentPrefix,
  readHeaderLines,
} from './describe-header-script.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

function describeFixture(name: string): SourceResult {
  const path = join(FIXTURES, name);
  return describeHeaderScript({ path, content: readFileSync(path, 'utf8') });
}

function codes(result: SourceResult): string[] {
  return result.diagnostics.map((d) => d.code);
}

describe('describeHeaderScript: good scripts', () => {
  it('turns HINTS lines into MCP annotations, in short or .NOTES spelling', () => {
    const result = describeFixture('good/count-lines.sh');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'info', code: 'I_RENAMED' }),
    ]);
    expect(result.tools[0]?.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('reads a bash header with every clause', () => {
    const result = describeFixture('good/list-files.sh');
    expect(result.tools).toHaveLength(1);
    const [tool] = result.tools;
    expect(tool).toMatchObject({
      name: 'list_files',
      originalName: 'list-files',
      description: 'Lists the files of a folder',
      source: { kind: 'script', path: join(FIXTURES, 'good/list-files.sh'), line: 2 },
      invocation: {
        runner: 'process',
        scriptPath: join(FIXTURES, 'good/list-files.sh'),
        extension: '.sh',
      },
    });
    expect(tool?.inputSchema).toEqual({
      type: 'object',
      properties: {
        folder: { type: 'string', description: 'The folder to list', examples: ['./src'] },
        depth: { type: 'integer', description: 'How deep to go', examples: [2] },
        kinds: {
          type: 'array',
          items: { type: 'string', enum: ['file', 'dir'] },
          description: 'What to list',
        },
        hidden: { type: 'boolean', description: 'Include hidden files', default: false },
      },
      required: ['folder'],
      additionalProperties: false,
    });
  });

  it('reports the renamed tool as info', () => {
    const result = describeFixture('good/list-files.sh');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'info',
        code: 'I_RENAMED',
        message: expect.stringContaining('"list_files"'),
      }),
    ]);
  });

  it('stops the header at the first line of code', () => {
    const result = describeFixture('good/list-files.sh');
    expect(Object.keys(result.tools[0]?.inputSchema.properties ?? {})).not.toContain('ignored');
  });

  it('reads a python header after coding and copyright comments, with JSON object examples', () => {
    const result = describeFixture('good/fetch_url.py');
    expect(result.diagnostics).toEqual([]);
    expect(result.tools[0]).toMatchObject({
      name: 'fetch_url',
      source: { line: 5 },
      invocation: { extension: '.py' },
      inputSchema: {
        properties: {
          url: { type: 'string', examples: ['https://example.com'] },
          timeout: { type: 'number', examples: [2.5] },
          headers: { type: 'object', examples: [{ Accept: 'text/html' }] },
        },
        required: ['url'],
      },
    });
  });

  it('reads // headers, types quoted LIKE values and keeps DEFAULT parameters optional', () => {
    const result = describeFixture('good/summarize.mjs');
    expect(result.diagnostics).toEqual([]);
    expect(result.tools[0]?.inputSchema).toMatchObject({
      properties: {
        sentences: { type: 'integer', enum: [1, 3, 5], examples: [3] },
        style: { type: 'string', enum: ['plain', 'bullets'], default: 'plain' },
      },
      required: ['text'],
    });
    expect(result.tools[0]?.invocation).toEqual({
      runner: 'process',
      scriptPath: join(FIXTURES, 'good/summarize.mjs'),
      extension: '.mjs',
    });
  });

  it('accepts a shebang, /// comments, negative numbers and typed array items in .ts', () => {
    const result = describeFixture('good/convert.ts');
    expect(result.diagnostics).toEqual([]);
    expect(result.tools[0]?.inputSchema.properties).toEqual({
      value: { type: 'number', description: 'The temperature', examples: [-40] },
      scales: {
        type: 'array',
        items: { type: 'integer' },
        description: 'Scale ids',
        examples: [[1, 2]],
      },
    });
  });

  it('takes lower-case keywords in declaration form, but not prose that starts with "Description"', () => {
    const result = describeFixture('good/echo.js');
    expect(result.diagnostics).toEqual([]);
    expect(result.tools[0]?.description).toBe('Echoes its input back, as a test tool');
    expect(Object.keys(result.tools[0]?.inputSchema.properties ?? {})).toEqual(['message', 'loud']);
  });

  it("reads BotServer's two-line form: a DESCRIPTION right after a PARAM describes the parameter", () => {
    const result = describeFixture('good/two-line.sh');
    expect(result.tools[0]).toMatchObject({
      description: 'Takes an order for an operator',
      source: { line: 6 },
      inputSchema: {
        properties: {
          operator: { type: 'number', description: 'Operator code', examples: [12312312] },
          note: { type: 'string', description: 'Unquoted parameter description' },
        },
        required: ['operator', 'note'],
      },
    });
  });

  it('unescapes \\" and "" inside strings and keeps other backslashes', () => {
    const result = describeFixture('good/escaped.sh');
    expect(result.tools[0]?.description).toBe(
      'Prints "quoted" text and a path like C:\\temp with "doubled" quotes',
    );
    expect(result.tools[0]?.inputSchema.properties?.text).toEqual({
      type: 'string',
      description: 'The "text" to print',
      examples: ['say "hi"'],
    });
  });

  it('reads files with CRLF line endings', () => {
    const result = describeFixture('good/crlf.sh');
    expect(result.tools[0]).toMatchObject({
      description: 'Uses Windows line endings',
      inputSchema: { required: ['name'] },
    });
  });

  it('serves a tool without parameters as an empty object schema', () => {
    const result = describeFixture('good/no-params.py');
    expect(result.tools[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('gives plain JSON', () => {
    const result = describeFixture('good/list-files.sh');
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});

describe('describeHeaderScript: refused scripts', () => {
  it('skips a script with no header with an info diagnostic', () => {
    const result = describeFixture('bad/no-header.sh');
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'info',
        code: 'I_NOT_A_TOOL',
        hint: expect.stringContaining('# DESCRIPTION'),
      }),
    ]);
  });

  it('refuses PARAM lines without a DESCRIPTION', () => {
    const result = describeFixture('bad/no-description.sh');
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', code: 'E_NO_DESCRIPTION', line: 1 }),
    ]);
  });

  it('reports each bad PARAM line with its line and the expected form', () => {
    const result = describeFixture('bad/bad-param-syntax.sh');
    expect(result.tools).toEqual([]);
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['E_PARAM_SYNTAX', 2],
      ['E_PARAM_SYNTAX', 3],
      ['E_PARAM_NAME', 4],
    ]);
    expect(result.diagnostics[0]?.message).toContain('"WITH"');
    expect(result.diagnostics[0]?.hint).toContain('PARAM name AS type');
  });

  it('refuses unknown types, .bas-only types and OF after a non-array', () => {
    const result = describeFixture('bad/unknown-type.py');
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['E_PARAM_TYPE', 2],
      ['E_PARAM_TYPE', 3],
      ['E_PARAM_TYPE', 4],
    ]);
    expect(result.diagnostics[0]?.hint).toContain(
      'string, integer, number, boolean, array, object',
    );
    expect(result.diagnostics[1]?.hint).toContain('.bas');
  });

  it('refuses a parameter declared twice, ignoring case', () => {
    const result = describeFixture('bad/duplicate-param.js');
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'E_DUPLICATE_PARAM',
        line: 3,
        message: expect.stringContaining('line 2'),
      }),
    ]);
  });

  it('refuses empty descriptions, of the tool and of a parameter', () => {
    const result = describeFixture('bad/empty-description.sh');
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['E_EMPTY_DESCRIPTION', 1],
      ['E_EMPTY_DESCRIPTION', 2],
    ]);
    expect(result.diagnostics[1]?.message).toBe('PARAM name: the DESCRIPTION is empty.');
  });

  it('refuses LIKE values that do not fit the declared type', () => {
    const result = describeFixture('bad/bad-like.sh');
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['E_PARAM_VALUE', 2],
      ['E_PARAM_VALUE', 3],
      ['E_PARAM_VALUE', 4],
      ['E_PARAM_VALUE', 5],
      ['E_PARAM_INVALID', 6],
    ]);
    expect(result.diagnostics[0]?.message).toBe(
      'PARAM count: the LIKE value "many" is not a whole number.',
    );
    expect(result.diagnostics[4]?.message).toContain('not one of "low", "high"');
  });

  it('refuses ENUM values that are not a JSON array of the declared type', () => {
    const result = describeFixture('bad/bad-enum.sh');
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['E_PARAM_ENUM', 2],
      ['E_PARAM_INVALID', 3],
      ['E_PARAM_INVALID', 3],
      ['E_PARAM_ENUM', 4],
    ]);
    expect(result.diagnostics[0]?.hint).toContain('ENUM ["low", "high"]');
  });

  it('refuses parameters without a description', () => {
    const result = describeFixture('bad/param-without-description.py');
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['E_PARAM_DESCRIPTION', 2],
      ['E_PARAM_DESCRIPTION', 4],
    ]);
  });

  it('refuses unclosed quotes', () => {
    const result = describeFixture('bad/unclosed.sh');
    expect(codes(result)).toEqual(['E_DECLARATION_SYNTAX', 'E_DECLARATION_SYNTAX']);
    expect(result.diagnostics[1]?.message).toContain('PARAM name');
  });

  it('refuses a file name with no letters or digits', () => {
    const result = describeFixture('bad/__.sh');
    expect(result.tools).toEqual([]);
    expect(codes(result)).toEqual(['E_TOOL_NAME']);
  });

  it('keeps the first of two tool descriptions and warns about the second', () => {
    const result = describeHeaderScript({
      path: '/tools/twice.sh',
      content: '# DESCRIPTION "one"\n# PARAM a AS string DESCRIPTION "A"\n# DESCRIPTION "two"\n',
    });
    expect(result.tools[0]?.description).toBe('one');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'W_DUPLICATE_DESCRIPTION', line: 3 }),
    ]);
  });

  it('reads scripts of other interpreters with their own line comment', () => {
    const ruby = describeHeaderScript({
      path: '/x/greet.rb',
      content: '# DESCRIPTION "Greets"\nputs 1\n',
    });
    expect(ruby.tools[0]?.invocation).toEqual({
      runner: 'process',
      scriptPath: '/x/greet.rb',
      extension: '.rb',
    });
    const lua = describeHeaderScript({
      path: '/x/greet.lua',
      content: '-- DESCRIPTION "Greets"\nprint(1)\n',
    });
    expect(lua.tools[0]?.description).toBe('Greets');
    const custom = describeHeaderScript({
      path: '/x/greet.xyz',
      content: '; DESCRIPTION "Greets"\n',
      commentPrefix: ';',
    });
    expect(custom.tools[0]?.description).toBe('Greets');
    expect(HEADER_SCRIPT_EXTENSIONS).toEqual(['.sh', '.py', '.js', '.mjs', '.ts']);
    expect([getCommentPrefix('.TS'), getCommentPrefix('.pl'), getCommentPrefix('.cjs')]).toEqual([
      '//',
      '#',
      '//',
    ]);
  });
});

describe('readHeaderLines', () => {
  it('strips the marker, skips blanks and the shebang, and stops at code', () => {
    expect(readHeaderLines('#!/bin/sh\n\n# one\n#two\n  # three\necho\n# four', '#')).toEqual([
      { text: ' one', line: 3 },
      { text: 'two', line: 4 },
      { text: ' three', line: 5 },
    ]);
  });

  it('accepts a repeated marker', () => {
    expect(readHeaderLines('## a\n/// b', '#')).toEqual([{ text: ' a', line: 1 }]);
    expect(readHeaderLines('/// b\n---', '//')).toEqual([{ text: ' b', line: 1 }]);
  });

  it('strips a byte-order mark', () => {
    expect(readHeaderLines('\uFEFF// a', '//')).toEqual([{ text: ' a', line: 1 }]);
  });
});

describe('describeHeaderScript: HINTS problems', () => {
  it('refuses read-only and destructive at once, and names every bad hint with its line', () => {
    const result = describeFixture('bad/conflicting-hints.py');
    expect(result.tools).toEqual([]);
    expect(
      result.diagnostics.map(({ severity, code, line }) => ({ severity, code, line })),
    ).toEqual([
      { severity: 'warning', code: 'W_UNKNOWN_HINT', line: 3 },
      { severity: 'error', code: 'E_CONFLICTING_HINTS', line: 3 },
    ]);
    expect(result.diagnostics[0]?.message).toContain('"fast"');
  });

  it('suggests the hint a misspelt name meant, and refuses an empty HINTS line', () => {
    const content = '# DESCRIPTION "x"\n# HINTS readOnyl\n# HINTS\n';
    const result = describeHeaderScript({ path: '/s/x.sh', content });
    expect(result.diagnostics).toMatchObject([
      { code: 'W_UNKNOWN_HINT', line: 2, hint: 'Did you mean readOnly?' },
      { code: 'E_HINTS_EMPTY', line: 3 },
    ]);
    expect(result.tools).toEqual([]);
  });

  it('takes a lower-case "hints" for prose in a header, but not in BASIC', () => {
    const content = '# DESCRIPTION "x"\n# hints readOnly would be nice\n';
    expect(
      describeHeaderScript({ path: '/s/x.sh', content }).tools[0]?.annotations,
    ).toBeUndefined();
  });
});

describe('describeHeaderScript: OUTPUT, EXAMPLE, OPTIONS and TIMEOUT', () => {
  it('builds the output schema, input examples, opt-ins and timeout, leaving prose alone', () => {
    const result = describeFixture('good/search-issues.py');
    expect(result.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    const [tool] = result.tools;
    expect(tool?.outputSchema).toEqual({
      type: 'object',
      properties: {
        total: { type: 'integer', description: 'How many issues match' },
        issues: { type: 'array', description: 'The first matches', items: { type: 'object' } },
        next_page: { type: 'string', description: 'Cursor of the next page, absent on the last' },
      },
      required: ['total', 'issues'],
    });
    expect(tool?.inputExamples).toEqual([
      { arguments: { query: 'jira', limit: 5 }, description: 'Five issues about jira' },
      { arguments: { query: 'crash' } },
    ]);
    expect(tool).toMatchObject({
      longRunning: true,
      progressResetsTimeout: true,
      timeoutMs: 600_000,
    });
    // The output properties stay out of the input schema.
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['query', 'limit']);
  });

  it('reports every bad OUTPUT, EXAMPLE, OPTIONS and TIMEOUT line with its line and a hint', () => {
    const path = join(FIXTURES, 'bad/bad-declarations.sh');
    const result = describeFixture('bad/bad-declarations.sh');
    expect(result.tools).toEqual([]);
    const seen = result.diagnostics.map((d) => [d.line, d.code, d.message]);
    expect(seen).toEqual([
      [4, 'E_PARAM_SYNTAX', expect.stringContaining('OUTPUT total cannot have a DEFAULT')],
      [5, 'E_PARAM_TYPE', expect.stringContaining('OUTPUT size has the unknown type "weird"')],
      [6, 'E_PARAM_DESCRIPTION', 'OUTPUT name has no description.'],
      [
        7,
        'E_DECLARATION_SYNTAX',
        expect.stringContaining('EXAMPLE needs a JSON object of arguments'),
      ],
      [10, 'W_UNKNOWN_OPTION', expect.stringContaining('"long-runing"')],
      [10, 'W_UNKNOWN_OPTION', expect.stringContaining('"fast"')],
      [11, 'E_DECLARATION_SYNTAX', expect.stringContaining('TIMEOUT needs a positive duration')],
    ]);
    expect(result.diagnostics.every((d) => d.path === path && d.hint !== undefined)).toBe(true);
    expect(result.diagnostics.find((d) => d.line === 10)?.hint).toBe('Did you mean long-running?');
  });

  it('drops an EXAMPLE whose arguments do not fit the parameters, with a warning on its line', () => {
    const content = [
      '# DESCRIPTION "Counts"',
      '# PARAM count AS integer DESCRIPTION "How many"',
      '# EXAMPLE {"count": "many"} DESCRIPTION "Wrong type"',
      '# EXAMPLE {"count": 2, "extra": true}',
      '# EXAMPLE {"count": 2} DESCRIPTION "Fine"',
    ].join('\n');
    const result = describeHeaderScript({ path: '/p/count.sh', content });
    expect(result.tools[0]?.inputExamples).toEqual([
      { arguments: { count: 2 }, description: 'Fine' },
    ]);
    expect(result.diagnostics.map((d) => [d.line, d.code])).toEqual([
      [3, 'W_EXAMPLE_IGNORED'],
      [4, 'W_EXAMPLE_IGNORED'],
    ]);
    expect(result.diagnostics[0]?.message).toMatch(/\/count must be integer/);
  });

  it('takes lower-case keywords in declaration form only, and an upper-case OUTPUT alone declares a tool', () => {
    const prose = [
      '# DESCRIPTION "Prints"',
      '# output: a JSON object',
      '# Example usage: run it',
      '# options are none',
      '# timeout after a while',
      '# output total as integer DESCRIPTION "Declared in lower case"',
    ].join('\n');
    const result = describeHeaderScript({ path: '/p/prints.sh', content: prose });
    expect(result.diagnostics).toEqual([]);
    expect(Object.keys(result.tools[0]?.outputSchema?.properties ?? {})).toEqual(['total']);
    expect(result.tools[0]?.longRunning).toBeUndefined();
  });

  it("reads BotServer's two-line form for an OUTPUT, and names the OUTPUT when that line is empty", () => {
    const content = [
      '# DESCRIPTION "Totals"',
      '# OUTPUT total AS integer',
      '# DESCRIPTION "The sum"',
      '# OUTPUT count AS integer',
      '# DESCRIPTION ""',
    ].join('\n');
    const result = describeHeaderScript({ path: '/p/totals.sh', content });
    expect(result.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [5, 'OUTPUT count: the DESCRIPTION is empty.'],
    ]);
  });
});

describe('describeHeaderScript: misspelled keywords', () => {
  it('warns at a header line whose keyword is misspelled (# PARM), naming the keyword meant', () => {
    const result = describeFixture('bad/misspelled-keyword.sh');
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: 'warning',
        code: 'W_MISSPELLED_KEYWORD',
        line: 3,
        message: expect.stringContaining('starts with "PARM", which is no header keyword'),
        hint: 'Did you mean PARAM? Correct the keyword.',
      }),
    );
    // The line is ignored, as before: the tool has no parameter from it.
    expect(result.tools[0]?.inputSchema.properties).toEqual({});
    expect(result.diagnostics.filter((d) => d.code === 'W_MISSPELLED_KEYWORD')).toHaveLength(1);
  });
});
