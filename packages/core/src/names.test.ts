import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolpackError } from './errors.ts';
import {
  isValidToolName,
  normalizeToolName,
  splitWords,
  toInvokeFunctionName,
  toKebabCase,
  toPascalCase,
  toSnakeCase,
  validateToolName,
} from './names.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

describe('case conversions', { timeout: fuzzTimeout() }, () => {
  it.each([
    ['send-notification', 'send_notification', 'SendNotification'],
    ['send_notification', 'send_notification', 'SendNotification'],
    ['SendNotification', 'send_notification', 'SendNotification'],
    ['sendNotification', 'send_notification', 'SendNotification'],
    ['Invoke-SendNotification', 'invoke_send_notification', 'InvokeSendNotification'],
    ['GetHTTPResponse', 'get_http_response', 'GetHttpResponse'],
    ['HTTP2Server', 'http2_server', 'Http2Server'],
    ['oauth2_login', 'oauth2_login', 'Oauth2Login'],
    ['  list  files  ', 'list_files', 'ListFiles'],
    ['café-menu', 'cafe_menu', 'CafeMenu'],
  ])('%s -> %s / %s', (input, snake, pascal) => {
    expect(toSnakeCase(input)).toBe(snake);
    expect(toPascalCase(input)).toBe(pascal);
    expect(toKebabCase(input)).toBe(snake.replace(/_/g, '-'));
  });

  it('names the dotbot function of a tool', () => {
    expect(toInvokeFunctionName('send_notification')).toBe('Invoke-SendNotification');
    expect(toInvokeFunctionName('send-notification')).toBe('Invoke-SendNotification');
  });

  it('ignores the machine locale (Turkish dotted and dotless i)', () => {
    const previous = process.env.LANG;
    process.env.LANG = 'tr_TR.UTF-8';
    try {
      expect(toSnakeCase('IndexItems')).toBe('index_items');
      expect(toPascalCase('index_items')).toBe('IndexItems');
    } finally {
      process.env.LANG = previous;
    }
  });

  it('drops what cannot become ASCII', () => {
    expect(splitWords('日本語 tool')).toEqual(['tool']);
    expect(splitWords('')).toEqual([]);
    expect(toSnakeCase('---')).toBe('');
  });

  it('round-trips snake -> Pascal -> snake and snake -> kebab -> snake', () => {
    const word = fc.stringMatching(/^[a-z]{2,8}[0-9]{0,2}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
        const snake = words.join('_');
        expect(toSnakeCase(toPascalCase(snake))).toBe(snake);
        expect(toSnakeCase(toKebabCase(snake))).toBe(snake);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });
});

describe('validateToolName', () => {
  it('accepts names within the MCP rule', () => {
    expect(validateToolName('send_notification')).toEqual([]);
    expect(validateToolName('a')).toEqual([]);
    expect(validateToolName('Get-Widget')).toEqual([]);
    expect(validateToolName('x'.repeat(64))).toEqual([]);
    expect(isValidToolName('x'.repeat(64))).toBe(true);
  });

  it('rejects empty, 65-character and non-ASCII names, saying why', () => {
    expect(validateToolName('')).toEqual(['the name is empty']);
    expect(validateToolName('x'.repeat(65))).toEqual([
      'the name has 65 characters, more than the 64 allowed',
    ]);
    expect(validateToolName('café')[0]).toContain("'é'");
    expect(validateToolName('a b:c')[0]).toBe(
      "the name contains space, ':'; only A-Z, a-z, 0-9, _ and - are allowed",
    );
    expect(isValidToolName('a.b')).toBe(false);
  });
});

describe('normalizeToolName', { timeout: fuzzTimeout() }, () => {
  it('leaves valid snake-case names alone', () => {
    expect(normalizeToolName('send_notification')).toEqual({
      name: 'send_notification',
      changed: false,
      changes: [],
    });
  });

  it("maps PowerShell's Verb-Noun hyphen, colons and spaces to _ and reports it", () => {
    const result = normalizeToolName('Get-Widget');
    expect(result).toEqual({
      name: 'Get_Widget',
      changed: true,
      changes: ["replaced '-' with '_'"],
    });
    expect(normalizeToolName('ns:get widget').name).toBe('ns_get_widget');
    expect(normalizeToolName('Get-Widget', { allowHyphen: true }).changed).toBe(false);
  });

  it('folds accents and replaces other unicode', () => {
    const result = normalizeToolName('créer_fiche');
    expect(result.name).toBe('creer_fiche');
    expect(result.changes).toEqual(['folded accented letters to ASCII']);
    expect(normalizeToolName('日本_tool').name).toBe('___tool');
    expect(normalizeToolName('tab\tname').changes).toEqual(["replaced U+0009 with '_'"]);
  });

  it('shortens long names with a hash so distinct long names stay distinct', () => {
    const a = normalizeToolName(`${'x'.repeat(70)}_a`);
    const b = normalizeToolName(`${'x'.repeat(70)}_b`);
    expect(a.name).toHaveLength(64);
    expect(b.name).toHaveLength(64);
    expect(a.name).not.toBe(b.name);
    expect(a.changes).toEqual(['shortened from 72 to 64 characters']);
  });

  it('refuses names with no letters or digits', () => {
    expect(() => normalizeToolName('')).toThrow(ToolpackError);
    expect(() => normalizeToolName('')).toThrow('A tool name is empty.');
    expect(() => normalizeToolName('---')).toThrow(/no letters or digits/);
    try {
      normalizeToolName('');
    } catch (error) {
      expect((error as ToolpackError).code).toBe('E_TOOL_NAME');
      expect((error as ToolpackError).hint).toMatch(/send_notification/);
    }
  });

  it('always yields a valid MCP name or throws E_TOOL_NAME (any unicode input)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 120 }), (raw) => {
        try {
          const { name } = normalizeToolName(raw);
          expect(isValidToolName(name)).toBe(true);
        } catch (error) {
          expect((error as ToolpackError).code).toBe('E_TOOL_NAME');
        }
      }),
      { numRuns: fuzzRuns(3000) },
    );
  });
});
