import { describe, expect, it } from 'vitest';
import { checkParamHeaders, checkToolCallHeaders, findParamHeaders } from './mcp-param-headers.ts';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
    target: {
      type: 'object',
      properties: { host: { type: 'string', 'x-mcp-header': 'Host' } },
    },
    tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } },
    ratio: { type: 'number', 'x-mcp-header': 'Ratio' },
    spaced: { type: 'string', 'x-mcp-header': 'Has Space' },
    again: { type: 'string', 'x-mcp-header': 'region' },
  },
};
const base64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('findParamHeaders', () => {
  it('finds declarations through properties only, and leaves out the ones the spec forbids', () => {
    expect(findParamHeaders(schema)).toEqual([
      { path: ['region'], header: 'Region', type: 'string' },
      { path: ['count'], header: 'Count', type: 'integer' },
      { path: ['dryRun'], header: 'Dry-Run', type: 'boolean' },
      { path: ['target', 'host'], header: 'Host', type: 'string' },
    ]);
  });
});

describe('checkParamHeaders', () => {
  const declared = findParamHeaders(schema);
  const args = { region: 'eu-west', count: 42, dryRun: false, target: { host: 'db1' } };
  const matching = {
    'mcp-param-region': 'eu-west',
    'mcp-param-count': '42.0',
    'mcp-param-dry-run': 'false',
    'mcp-param-host': 'db1',
  };

  it('accepts headers equal to the arguments, numbers compared as numbers', () => {
    expect(checkParamHeaders(declared, args, matching)).toBeUndefined();
  });

  it('decodes the Base64 form, and takes a value without both markers literally', () => {
    expect(
      checkParamHeaders(
        declared,
        { region: 'Zürich ✓' },
        { 'mcp-param-region': base64('Zürich ✓') },
      ),
    ).toBeUndefined();
    const literal = '=?base64?SGVsbG8=';
    expect(
      checkParamHeaders(declared, { region: literal }, { 'mcp-param-region': literal }),
    ).toBeUndefined();
  });

  it('refuses a missing header, a different value and broken Base64', () => {
    expect(
      checkParamHeaders(declared, args, { ...matching, 'mcp-param-region': undefined }),
    ).toMatchObject({
      header: 'Mcp-Param-Region',
      message: expect.stringContaining('missing'),
    });
    expect(
      checkParamHeaders(declared, args, { ...matching, 'mcp-param-count': '43' })?.header,
    ).toBe('Mcp-Param-Count');
    expect(
      checkParamHeaders(declared, args, { ...matching, 'mcp-param-host': 'db2' })?.header,
    ).toBe('Mcp-Param-Host');
    for (const broken of ['=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=', '=?base64?/w==?='])
      expect(
        checkParamHeaders(declared, { region: 'Hello' }, { 'mcp-param-region': broken })?.message,
      ).toContain('not valid Base64');
  });

  it('expects no header for an argument that is absent or null, and ignores one sent anyway', () => {
    expect(
      checkParamHeaders(declared, { region: null }, { 'mcp-param-region': 'x' }),
    ).toBeUndefined();
    expect(checkParamHeaders(declared, {}, {})).toBeUndefined();
  });

  it('without declarations, any header passes: the check is what ties them to the body', () => {
    expect(checkParamHeaders([], args, { 'mcp-param-region': 'us-east' })).toBeUndefined();
    expect(
      checkParamHeaders(declared, args, { ...matching, 'mcp-param-region': 'us-east' }),
    ).toBeDefined();
  });
});

describe('checkToolCallHeaders', () => {
  const tools = [{ name: 'route', inputSchema: schema }];
  const call = (params: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params,
  });

  it('checks a tools/call of a declaring tool and passes everything else', () => {
    expect(
      checkToolCallHeaders(tools, call({ name: 'route', arguments: { region: 'a' } }), {}),
    ).toBeDefined();
    expect(
      checkToolCallHeaders(tools, call({ name: 'other', arguments: { region: 'a' } }), {}),
    ).toBeUndefined();
    expect(
      checkToolCallHeaders(tools, { ...call({ name: 'route' }), method: 'tools/list' }, {}),
    ).toBeUndefined();
    expect(
      checkToolCallHeaders(tools, [call({ name: 'route', arguments: { region: 'a' } })], {}),
    ).toBeUndefined();
  });
});
