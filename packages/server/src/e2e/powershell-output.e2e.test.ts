import path from 'node:path';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasInspector,
  runInspectorCli,
  startStdioSession,
  type StdioSession,
} from '../testing/index.ts';

// PowerShell's [OutputType()] with a class of the module, or a hashtable described under
// .OUTPUTS, becomes the tool's output schema; what the pwsh runner really returns for them
// (class instances, DateTime as ISO 8601 text, nested objects) must fit it.
const project = path.join(import.meta.dirname, 'fixtures', 'powershell-output-project');

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

describe.skipIf(!hasPwsh)('PowerShell output schemas over mcp serve (SDK client)', () => {
  let session: StdioSession;

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
  });

  afterAll(async () => {
    await session?.close();
  });

  it(`${PWSH_TEST_TAG} lists the class and .OUTPUTS schemas, and the .EXAMPLE as an input example in _meta`, async () => {
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('Get_Widget')?.outputSchema?.required).toEqual([
      'Name',
      'Count',
      'Tags',
      'Retired',
      'Made',
      'Owner',
    ]);
    expect(byName.get('Get_StoreReport')?.outputSchema).toMatchObject({
      type: 'object',
      required: ['Store', 'Count', 'Tags', 'Taken'],
    });
    // The .EXAMPLE line, bound to the script's parameters, travels in the tool's _meta.
    expect(byName.get('Get_StoreReport')?._meta?.['dev.toolpack/inputExamples']).toEqual([
      { arguments: { Store: 'north' }, description: 'Reports on the north store.' },
    ]);
  });

  it(`${PWSH_TEST_TAG} a class instance comes back as structuredContent that fits the class schema`, async () => {
    // The SDK client checks structuredContent against the listed outputSchema itself and
    // throws when it does not fit: resolving is that check passing.
    const result = await session.client.callTool({
      name: 'Get_Widget',
      arguments: { Name: 'gear' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      Name: 'gear',
      Count: 3,
      Tags: ['a', 'b'],
      Retired: false,
      Made: '2024-01-02T00:00:00.0000000',
      // Two objects deep the runner writes a class instance as its ToString() text.
      Owner: { Name: 'Ada', Manager: 'WidgetOwner' },
    });
  });

  it(`${PWSH_TEST_TAG} unset reference properties are null, which the schema allows`, async () => {
    const result = await session.client.callTool({
      name: 'Get_NewWidget',
      arguments: { Name: 'bolt' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ Name: 'bolt', Tags: null, Owner: null });
  });

  it(`${PWSH_TEST_TAG} a hashtable fits its .OUTPUTS schema, and a wrong one is E_OUTPUT_MISMATCH`, async () => {
    const good = await session.client.callTool({
      name: 'Get_StoreReport',
      arguments: { Store: 'north' },
    });
    expect(good.isError).toBeFalsy();
    expect(good.structuredContent).toMatchObject({
      Store: 'north',
      Count: 3,
      Taken: '2024-01-02T03:04:05.0000000',
    });
    const bad = await session.client.callTool({
      name: 'Get_StoreReport',
      arguments: { Store: 'north', Shape: 'bad' },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/E_OUTPUT_MISMATCH .*structuredContent\/Count must be integer/s);
    // A run without errors that returns the wrong shape: its output first, the mismatch after.
    const blocks = bad.content as { type: string; text: string }[];
    expect(blocks[0]?.text).toContain('"Count":"three"');
    expect(blocks.at(-1)?.text).toMatch(/^E_OUTPUT_MISMATCH /);
  });

  it(`${PWSH_TEST_TAG} an error the script wrote leads the result, not the output mismatch it caused`, async () => {
    const result = await session.client.callTool({
      name: 'Get_FileAge',
      arguments: { Path: path.join(project, 'no-such-file.txt') },
    });
    expect(result.isError).toBe(true);
    const blocks = result.content as { type: string; text: string }[];
    // The headline is what LangChain and Mastra throw with: it must be the real cause.
    expect(blocks[0]?.text).toMatch(
      /^PowerShell tool "Get_FileAge" wrote an error and returned no result that fits its output schema:\n- .*Cannot find path/,
    );
    expect(textOf(result)).not.toContain('E_OUTPUT_MISMATCH');
    expect(textOf(result)).not.toContain('change the schema');
    const found = await session.client.callTool({
      name: 'Get_FileAge',
      arguments: { Path: path.join(project, 'toolpack.yaml') },
    });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toMatchObject({ Path: path.join(project, 'toolpack.yaml') });
  });
});

describe.skipIf(!hasInspector || !hasPwsh)(
  'PowerShell output schemas through the Inspector CLI [needs Inspector]',
  () => {
    function runInspector(method: string[]): Record<string, unknown> {
      const result = runInspectorCli({ cwd: project, method });
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      return result.json;
    }

    it(`${PWSH_TEST_TAG} lists the class schema and calls the tool to a fitting class instance`, () => {
      const listed = runInspector(['--method', 'tools/list']);
      const tools = listed.tools as { name: string; outputSchema?: { required?: string[] } }[];
      expect(tools.find((tool) => tool.name === 'Get_Widget')?.outputSchema?.required).toContain(
        'Owner',
      );
      const called = runInspector([
        '--method',
        'tools/call',
        '--tool-name',
        'Get_Widget',
        '--tool-arg',
        'Name=gear',
      ]);
      expect(called.isError).toBeFalsy();
      expect(called.structuredContent).toMatchObject({ Name: 'gear', Count: 3 });
    });
  },
);
