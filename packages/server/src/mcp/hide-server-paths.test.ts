import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpToolHost } from './create-mcp-server.ts';
import { createServerPathRewriter, findSourceRoots, hideServerPaths } from './hide-server-paths.ts';

const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-hide-paths-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const project = path.join(temp, 'my project');
const rewrite = createServerPathRewriter({
  projectRoot: project,
  sourceRoots: [path.join(temp, 'shared tools')],
  toolpackFolder: '/opt/toolpack/node_modules/@toolpack',
  runtimeFolder: '/run/user/1000',
  tempFolder: temp,
  homeFolder: '/home/ada',
});

describe('createServerPathRewriter', () => {
  it('shows a project path relative to the project, as mcp list does', () => {
    expect(rewrite(`At ${project}/scripts/Get-Thing.ps1:3 char:1\n+ Get-Item x`)).toBe(
      'At scripts/Get-Thing.ps1:3 char:1\n+ Get-Item x',
    );
    expect(rewrite(`cd ${project} failed`)).toBe('cd . failed');
    expect(rewrite(`${project}/tools/fail.sh: line 4: nope: command not found`)).toBe(
      'tools/fail.sh: line 4: nope: command not found',
    );
  });

  it('rewrites file URLs, spaces encoded or not, and Python and Node traces', () => {
    const url = pathToFileURL(path.join(project, 'lib', 'tool.mjs')).href;
    expect(url).toContain('%20');
    expect(rewrite(`Error: boom\n    at run (${url}:5:11)`)).toBe(
      'Error: boom\n    at run (lib/tool.mjs:5:11)',
    );
    expect(rewrite(`  File "${project}/scripts/fail.py", line 2, in <module>`)).toBe(
      '  File "scripts/fail.py", line 2, in <module>',
    );
  });

  it('names the other roots by what they are, the longest root first', () => {
    expect(rewrite(`${temp}/shared tools/x.sh`)).toBe('../shared tools/x.sh');
    expect(rewrite(`${temp}/toolpack-run-1/out.txt`)).toBe('<tmp>/toolpack-run-1/out.txt');
    expect(rewrite('/run/user/1000/toolpack/run-a/in.json')).toBe(
      '<runtime>/toolpack/run-a/in.json',
    );
    expect(rewrite('/home/ada/.config/x and /home/ada')).toBe('~/.config/x and ~');
    expect(rewrite('at /opt/toolpack/node_modules/@toolpack/runners/assets/host.ps1: line 9')).toBe(
      'at <toolpack>/runners/assets/host.ps1: line 9',
    );
  });

  it('leaves a path that only starts like a root alone', () => {
    expect(rewrite('/home/adam/notes and /home/ada.bak')).toBe(
      '/home/adam/notes and /home/ada.bak',
    );
    expect(rewrite(`${project}x/file`)).toBe('<tmp>/my projectx/file');
    expect(rewrite('/usr/bin/bash')).toBe('/usr/bin/bash');
  });
});

describe('findSourceRoots', () => {
  const home = '/home/ada';
  const served = '/home/ada/.cache/toolpack/served/json/1.1.0-b4aa/pack';

  it("shows a pack served from the cache from ~, not relative to the server's folder", () => {
    // mcp serve --pack json started by a client in /srv/clients: the pack is no project folder.
    const projectRoot = '/srv/clients';
    const sources = [{ scripts: path.relative(projectRoot, `${served}/scripts`), pack: 'json' }];
    const roots = findSourceRoots(projectRoot, sources, { homeFolder: home, tempFolder: temp });
    expect(roots).toEqual([]);
    const shown = createServerPathRewriter({
      projectRoot,
      sourceRoots: roots,
      homeFolder: home,
      tempFolder: temp,
    });
    expect(shown(`${served}/scripts/diff.mjs`)).toBe(
      '~/.cache/toolpack/served/json/1.1.0-b4aa/pack/scripts/diff.mjs',
    );
    // Without the exception, the path a client saw depended on where it started the server.
    const relative = createServerPathRewriter({
      projectRoot,
      sourceRoots: [`${served}/scripts`],
      homeFolder: home,
      tempFolder: temp,
    });
    expect(relative(`${served}/scripts/diff.mjs`)).toBe(
      '../../home/ada/.cache/toolpack/served/json/1.1.0-b4aa/pack/scripts/diff.mjs',
    );
  });

  it("keeps a project's own sources and installed packs relative to it, as mcp list shows them", () => {
    const projectRoot = '/home/ada/project';
    expect(
      findSourceRoots(
        projectRoot,
        [
          { scripts: '../shared' },
          { scripts: '.toolpack/packs/json/scripts', pack: 'json' },
          { module: 'Widgets' },
        ],
        { homeFolder: home, tempFolder: temp },
      ),
    ).toEqual(['/home/ada/shared', '/home/ada/project/.toolpack/packs/json/scripts']);
  });
});

describe('hideServerPaths', () => {
  const failing = `Cannot find path '${project}/missing.txt' because it does not exist.`;
  const tools = [
    {
      name: 'read',
      description: `Reads files under ${project}/data.`,
      inputSchema: {
        type: 'object',
        properties: {
          file: {
            type: 'string',
            description: `A file in ${project}/data`,
            default: `${project}/data/a`,
          },
        },
      },
    } as Tool,
  ];
  const host: McpToolHost = {
    info: { name: 't', version: '1' },
    listTools: () => tools,
    outputSchemaOf: () => undefined,
    callTool: async (name, _args, options) => {
      if (name === 'describe_tool' || name === 'call_tool') {
        const described = { name: 'read', source: { path: `${project}/tools/read.sh` } };
        return {
          result: {
            content: [{ type: 'text', text: JSON.stringify(described) }],
            structuredContent: described,
          },
        };
      }
      options.onLog('error', failing);
      options.onProgress?.({ progress: 1, message: `reading ${project}/data` });
      if (name === 'ok')
        return { result: { content: [{ type: 'text', text: `${project}/data/a` }] } };
      return { result: { content: [{ type: 'text', text: failing }], isError: true } };
    },
  };
  const hidden = hideServerPaths(host, rewrite, {
    answersForServer: (name) => name === 'describe_tool',
  });

  it('rewrites descriptions in tools/list and nothing else of the schema', () => {
    const [tool] = hidden.listTools();
    expect(tool?.description).toBe('Reads files under data.');
    const file = (tool?.inputSchema.properties as Record<string, Record<string, unknown>>).file;
    expect(file?.description).toBe('A file in data');
    // A default is a value the tool receives: changing it would change what runs.
    expect(file?.default).toBe(`${project}/data/a`);
    expect(hidden.listTools()).toBe(hidden.listTools());
  });

  it('hands a tool with no server path in it on as it is, without a copy', () => {
    const plain = {
      name: 'plain',
      description: 'Says hello.',
      inputSchema: { type: 'object' },
    } as Tool;
    const listed = hideServerPaths({ ...host, listTools: () => [plain] }, rewrite).listTools();
    expect(listed[0]).toBe(plain);
  });

  it('rewrites a failed result, log and progress messages; a successful result is the tool data', async () => {
    const logs: string[] = [];
    const progress: (string | undefined)[] = [];
    const options = {
      signal: new AbortController().signal,
      onLog: (_level: string, message: string) => logs.push(message),
      onProgress: (report: { message?: string }) => progress.push(report.message),
    };
    const failed = await hidden.callTool('fail', {}, options);
    expect(failed).toEqual({
      result: {
        content: [
          { type: 'text', text: "Cannot find path 'missing.txt' because it does not exist." },
        ],
        isError: true,
      },
    });
    const ok = await hidden.callTool('ok', {}, options);
    expect(ok).toEqual({ result: { content: [{ type: 'text', text: `${project}/data/a` }] } });
    expect(logs).toEqual([
      "Cannot find path 'missing.txt' because it does not exist.",
      "Cannot find path 'missing.txt' because it does not exist.",
    ]);
    expect(progress).toEqual(['reading data', 'reading data']);
    // Without the wrapper the same host hands the client the absolute path.
    const raw = await host.callTool('fail', {}, options);
    expect(JSON.stringify(raw)).toContain(project);
  });

  it("rewrites the server's own answers, also when call_tool ran them", async () => {
    const options = { signal: new AbortController().signal, onLog: () => undefined };
    for (const [name, args] of [
      ['describe_tool', { name: 'read' }],
      ['call_tool', { name: 'describe_tool', arguments: { name: 'read' } }],
    ] as const) {
      const answer = await hidden.callTool(name, args, options);
      expect(answer).toEqual({
        result: {
          content: [{ type: 'text', text: '{"name":"read","source":{"path":"tools/read.sh"}}' }],
          structuredContent: { name: 'read', source: { path: 'tools/read.sh' } },
        },
      });
    }
  });
});
