import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceResult } from '../../types.ts';
import { describeBasicScript, readBasicStatements } from './describe-basic-script.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

function describeFixture(name: string): SourceResult {
  const path = join(FIXTURES, name);
  return describeBasicScript({ path, content: readFileSync(path, 'utf8') });
}

function codesAndLines(result: SourceResult): [string, number | undefined][] {
  return result.diagnostics.map((d) => [d.code, d.line]);
}

describe('describeBasicScript: BotServer scripts', () => {
  it("compiles BotServer's enrollment example, two-line PARAM/DESCRIPTION form included", () => {
    const path = join(FIXTURES, 'good/enrollment.bas');
    const result = describeFixture('good/enrollment.bas');
    expect(result.tools).toHaveLength(1);
    expect(result.tools[0]).toMatchObject({
      name: 'enrollment',
      originalName: 'enrollment',
      description: 'This is the enrollment process, called when the user wants to enroll.',
      source: { kind: 'basic', path, line: 16 },
      invocation: { runner: 'process', scriptPath: path, extension: '.bas' },
      inputSchema: {
        type: 'object',
        required: ['name', 'birthday', 'email', 'personalid', 'address'],
        additionalProperties: false,
      },
    });
    expect(result.tools[0]?.inputSchema.properties).toMatchObject({
      name: {
        type: 'string',
        description: 'Required full name of the individual.',
        examples: ['João Silva'],
      },
      personalid: { type: 'integer', examples: [12345678900] },
    });
  });

  it('keeps a DD/MM/YYYY date working by dropping the date format, with a warning', () => {
    const result = describeFixture('good/enrollment.bas');
    expect(result.tools[0]?.inputSchema.properties?.birthday).toEqual({
      type: 'string',
      description: 'Required birth date of the individual in DD/MM/YYYY format.',
      examples: ['23/09/2001'],
    });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'W_DATE_FORMAT', line: 4 }),
    ]);
  });

  it('reads unquoted descriptions and ignores BEGIN ... END text blocks', () => {
    const result = describeFixture('good/store-chatbot.bas');
    expect(result.tools[0]).toMatchObject({
      name: 'store_chatbot',
      description: 'It is a WebService of GB.',
      source: { line: 4 },
      inputSchema: {
        properties: {
          operator: { type: 'number', description: 'Operator code.', examples: [12312312] },
        },
      },
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['I_RENAMED']);
  });

  it("skips ' and REM comments and accepts lower-case keywords, OPTIONAL and ENUM", () => {
    const result = describeFixture('good/get-weather.bas');
    expect(result.tools[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {
        location: { type: 'string', description: 'City for weather lookup', examples: ['Seattle'] },
        units: {
          type: 'string',
          enum: ['metric', 'imperial'],
          description: 'Unit system',
          examples: ['metric'],
        },
      },
      required: ['location'],
      additionalProperties: false,
    });
  });

  it("reads the JSON examples BotServer's documents write inside quotes, and defaults the type to string", () => {
    const result = describeFixture('good/user-preferences.bas');
    expect(result.tools[0]?.inputSchema.properties).toEqual({
      preferences: {
        type: 'object',
        description: 'User preference settings',
        examples: [{ theme: 'dark', notifications: true }],
      },
      tags: {
        type: 'array',
        description: 'Item categorization tags',
        examples: [['urgent', 'follow-up']],
      },
      nickname: { type: 'string', description: 'No type: a string, as in BotServer' },
    });
  });

  it('goes beyond BotServer: dates, integer vs number, typed arrays, enums on items, defaults, optional', () => {
    const result = describeFixture('good/schedule-meeting.bas');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['I_RENAMED']);
    const schema = result.tools[0]?.inputSchema;
    expect(schema?.required).toEqual(['title', 'starts', 'attendees']);
    expect(schema?.properties).toMatchObject({
      starts: { type: 'string', format: 'date-time', examples: ['2026-03-01T09:30:00Z'] },
      day: { type: 'string', format: 'date' },
      minutes: { type: 'integer', default: 30 },
      attendees: { type: 'array', items: { type: 'string' }, examples: [['ana@example.com']] },
      rooms: { type: 'array', items: { type: 'integer', enum: [101, 102] } },
      budget: { type: 'number', examples: [99.5] },
      remote: { type: 'boolean', examples: [true] },
    });
  });
});

describe('describeBasicScript: HINTS', () => {
  it('reads a HINTS statement into annotations', () => {
    const result = describeFixture('good/lookup-order.bas');
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'I_RENAMED' })]);
    expect(result.tools[0]).toMatchObject({
      name: 'lookup_order',
      description: 'Finds an order by its number.',
      annotations: { readOnlyHint: true, openWorldHint: true },
    });
  });

  it('takes the keyword in any case, as BASIC does', () => {
    const content = 'DESCRIPTION "x"\nhints Destructive\n';
    expect(describeBasicScript({ path: '/b/x.bas', content }).tools[0]?.annotations).toEqual({
      destructiveHint: true,
    });
  });
});

describe('describeBasicScript: compile-time checks', () => {
  it('skips a .bas file that declares nothing', () => {
    const result = describeFixture('bad/helper.bas');
    expect(result).toEqual({
      tools: [],
      diagnostics: [
        expect.objectContaining({
          severity: 'info',
          code: 'I_NOT_A_TOOL',
          hint: expect.stringContaining('DESCRIPTION "what it does"'),
        }),
      ],
    });
  });

  it('refuses invalid identifiers', () => {
    const result = describeFixture('bad/bad-identifier.bas');
    expect(result.tools).toEqual([]);
    expect(codesAndLines(result)).toEqual([
      ['E_PARAM_NAME', 1],
      ['E_PARAM_NAME', 2],
    ]);
  });

  it('refuses unsupported types, listing the supported ones', () => {
    const result = describeFixture('bad/unsupported-type.bas');
    expect(codesAndLines(result)).toEqual([
      ['E_PARAM_TYPE', 1],
      ['E_PARAM_TYPE', 2],
    ]);
    expect(result.diagnostics[0]?.hint).toContain('date, datetime');
  });

  it('refuses empty descriptions of parameters and of the tool', () => {
    const result = describeFixture('bad/empty-description.bas');
    expect(codesAndLines(result)).toEqual([
      ['E_EMPTY_DESCRIPTION', 1],
      ['E_EMPTY_DESCRIPTION', 3],
      ['E_EMPTY_DESCRIPTION', 4],
    ]);
    expect(result.diagnostics[1]?.message).toContain('PARAM city');
  });

  it('refuses names declared twice', () => {
    expect(codesAndLines(describeFixture('bad/duplicate.bas'))).toEqual([['E_DUPLICATE_PARAM', 4]]);
  });

  it('refuses a tool without a DESCRIPTION', () => {
    expect(codesAndLines(describeFixture('bad/no-description.bas'))).toEqual([
      ['E_NO_DESCRIPTION', 1],
    ]);
  });

  it('still sees the PARAM lines after a BEGIN block that never ends', () => {
    expect(codesAndLines(describeFixture('bad/unclosed-block.bas'))).toEqual([
      ['E_PARAM_DESCRIPTION', 4],
    ]);
  });
});

describe('readBasicStatements', () => {
  it('drops comments and closed text blocks, keeping line numbers', () => {
    const content =
      "' c\nREM c\nREMARK = 1\nBEGIN MAIL boss\nDESCRIPTION x\nEND MAIL boss\nDESCRIPTION y\n";
    expect(readBasicStatements(content)).toEqual([
      { text: 'REMARK = 1', line: 3 },
      { text: 'DESCRIPTION y', line: 7 },
      { text: '', line: 8 },
    ]);
  });
});

describe('describeBasicScript: OUTPUT, EXAMPLE, OPTIONS and TIMEOUT', () => {
  it('reads them as header scripts do, with .bas types and upper-case option names', () => {
    const result = describeFixture('good/order-status.bas');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['I_RENAMED']);
    expect(result.tools[0]).toMatchObject({
      name: 'order_status',
      outputSchema: {
        type: 'object',
        properties: {
          status: {
            type: 'string',
            description: 'Where the order is',
            enum: ['open', 'shipped', 'delivered'],
          },
          shipped_on: { type: 'string', format: 'date', description: 'When it left the warehouse' },
        },
        required: ['status'],
      },
      inputExamples: [
        { arguments: { order_id: 'A-1001' }, description: 'The status of order A-1001' },
      ],
      longRunning: true,
      timeoutMs: 90_000,
    });
    expect(result.tools[0]?.progressResetsTimeout).toBeUndefined();
  });

  it("leaves every BotServer fixture's tool as it was: no output schema, examples or opt-ins", () => {
    for (const name of ['enrollment', 'get-weather', 'lookup-order', 'schedule-meeting']) {
      const [tool] = describeFixture(`good/${name}.bas`).tools;
      expect(tool).toBeDefined();
      for (const key of [
        'outputSchema',
        'inputExamples',
        'longRunning',
        'progressResetsTimeout',
        'timeoutMs',
      ]) {
        expect(tool).not.toHaveProperty(key);
      }
    }
  });
});
