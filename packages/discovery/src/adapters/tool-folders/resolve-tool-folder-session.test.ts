import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverToolFolders } from './discover-tool-folders.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'dotbot-session');
const PROJECT = join(FIXTURE, 'project');
const FRAMEWORK = join(PROJECT, '.bot', 'runtime');
const TOOLS = '.bot/runtime/src/mcp/tools';

describe("tool folders: dotbot's server session", () => {
  it('gives the tools of a dotbot project the modules, globals and environment of dotbot-mcp.ps1, and says so', async () => {
    const result = await discoverToolFolders({ root: TOOLS, cwd: PROJECT });
    const invocation = result.tools[0]?.invocation;
    expect(invocation).toMatchObject({ runner: 'pwsh', mode: 'tool-folder' });
    const session =
      invocation?.runner === 'pwsh' && invocation.mode === 'tool-folder'
        ? invocation.session
        : undefined;
    expect(session?.origin).toBe('dotbot');
    // dotbot-mcp.ps1's own order: Core, Logging, the helpers, Workflow, Content, Runtime.
    expect(session?.imports).toEqual([
      join(FRAMEWORK, 'src/runtime/Modules/Dotbot.Core/Dotbot.Core.psm1'),
      join(FRAMEWORK, 'src/runtime/Modules/Dotbot.Logging/Dotbot.Logging.psd1'),
      join(FRAMEWORK, 'src/mcp/dotbot-mcp-helpers.ps1'),
      join(FRAMEWORK, 'src/runtime/Modules/Dotbot.Workflow/Dotbot.Workflow.psd1'),
      join(FRAMEWORK, 'src/runtime/Modules/Dotbot.Content/Dotbot.Content.psm1'),
      join(FRAMEWORK, 'src/runtime/Modules/Dotbot.Runtime/Dotbot.Runtime.psd1'),
    ]);
    expect(session?.variables).toMatchObject({
      DotbotProjectRoot: PROJECT,
      DotbotBotRoot: join(PROJECT, '.bot'),
      ErrorActionPreference: 'Stop',
    });
    expect(session?.environment?.DOTBOT_MCP_SESSION).toMatch(/^\d{14}-[0-9a-f]{8}$/);
    expect(session?.setup).toContain('Initialize-DotbotLog');
    expect(session?.jsonWriter).toBe('ConvertTo-Json');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'info',
        code: 'I_DOTBOT_SESSION',
        message: expect.stringContaining(`from ${join('.bot', 'runtime')}`),
      }),
    ]);
  });

  it('lists what dotbot lists: metadata.json as written (trailing newline), required: [] added, an agreeing metadata.yaml quiet', async () => {
    const result = await discoverToolFolders({ root: TOOLS, cwd: PROJECT });
    expect(result.tools[0]).toMatchObject({
      name: 'get_bot_path',
      description: "Returns the project's .bot folder.\n",
      inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    });
    expect(result.tools[0]?.source.path).toBe(
      join(PROJECT, TOOLS, 'get-bot-path', 'metadata.json'),
    );
    expect(result.diagnostics.map((d) => d.code)).not.toContain('W_METADATA_DISAGREE');
  });

  it('gives workflow tools outside the framework the session of the one copied into .bot/runtime', async () => {
    const result = await discoverToolFolders({
      root: '.bot/content/workflows/*/tools',
      cwd: PROJECT,
    });
    expect(result.tools.map((t) => t.name)).toEqual(['bump_note']);
    expect(result.tools[0]?.invocation).toMatchObject({
      session: {
        origin: 'dotbot',
        imports: expect.arrayContaining([
          join(FRAMEWORK, 'src/runtime/Modules/Dotbot.Logging/Dotbot.Logging.psd1'),
        ]),
      },
    });
  });

  it('gives no session where the project has no .bot folder, though the framework is the same', async () => {
    const result = await discoverToolFolders({ root: join('project', TOOLS), cwd: FIXTURE });
    const invocation = result.tools[0]?.invocation;
    expect(invocation).toMatchObject({ runner: 'pwsh', mode: 'tool-folder' });
    expect(invocation).not.toHaveProperty('session');
    expect(result.diagnostics).toEqual([]);
  });

  it('imports a preload: list after the session, resolved from the project root', async () => {
    const result = await discoverToolFolders({
      root: TOOLS,
      cwd: PROJECT,
      preload: ['scripts/Helpers.psm1'],
    });
    const invocation = result.tools[0]?.invocation;
    const session =
      invocation?.runner === 'pwsh' && invocation.mode === 'tool-folder'
        ? invocation.session
        : undefined;
    expect(session?.imports.at(-1)).toBe(join(PROJECT, 'scripts', 'Helpers.psm1'));

    const plain = await discoverToolFolders({
      root: join('project', TOOLS),
      cwd: FIXTURE,
      preload: ['project/scripts/Helpers.psm1'],
    });
    expect(plain.tools[0]?.invocation).toMatchObject({
      session: { origin: 'preload', imports: [join(PROJECT, 'scripts', 'Helpers.psm1')] },
    });
  });

  it('refuses the PowerShell tools of a source whose preload: file is missing, naming it', async () => {
    const result = await discoverToolFolders({
      root: TOOLS,
      cwd: PROJECT,
      preload: ['scripts/Missing.psm1'],
    });
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'E_PRELOAD_MISSING',
        path: join(PROJECT, 'scripts', 'Missing.psm1'),
        message: expect.stringContaining(
          'preload: names scripts/Missing.psm1, which does not exist',
        ),
      }),
    );
  });
});
