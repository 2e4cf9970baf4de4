import { describe, expect, it } from 'vitest';
import { createDiagnostic, type DiscoveredTool, type ToolSourceKind } from '@toolpack/core';
import { keepLastGoodTools } from './keep-last-good.ts';

function tool(
  name: string,
  file: string,
  kind: ToolSourceKind = 'script',
  description = 'v1',
): DiscoveredTool {
  return {
    name,
    originalName: name,
    description,
    inputSchema: { type: 'object', properties: {} },
    source: { kind, path: file },
    invocation: { runner: 'process', scriptPath: file, extension: '.sh' },
  };
}

const broken = (file: string) =>
  createDiagnostic('error', 'E_NO_DESCRIPTION', 'no description', { path: file, line: 2 });

describe('keepLastGoodTools', () => {
  it('takes the new list as it is when nothing was refused', () => {
    const next = [tool('a', '/s/a.sh', 'script', 'v2')];
    expect(
      keepLastGoodTools([tool('a', '/s/a.sh'), tool('b', '/s/b.sh')], {
        tools: next,
        diagnostics: [],
      }),
    ).toEqual({
      tools: next,
      kept: [],
    });
  });

  it('keeps the previous tool of a file the new discovery refused', () => {
    const previous = [tool('a', '/s/a.sh'), tool('b', '/s/b.sh')];
    const result = keepLastGoodTools(previous, {
      tools: [tool('a', '/s/a.sh')],
      diagnostics: [broken('/s/b.sh')],
    });
    expect(result.kept.map((t) => t.name)).toEqual(['b']);
    expect(result.tools.map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('puts a kept tool back in its place, so the list keeps its order', () => {
    const previous = [tool('a', '/s/a.sh'), tool('b', '/s/b.sh'), tool('c', '/s/c.sh')];
    const next = {
      tools: [tool('a', '/s/a.sh'), tool('c', '/s/c.sh')],
      diagnostics: [broken('/s/b.sh')],
    };
    expect(keepLastGoodTools(previous, next).tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    const first = {
      tools: [tool('b', '/s/b.sh'), tool('c', '/s/c.sh')],
      diagnostics: [broken('/s/a.sh')],
    };
    expect(keepLastGoodTools(previous, first).tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
  });

  it('lets a deleted file’s tool go (no diagnostic about it)', () => {
    const result = keepLastGoodTools([tool('a', '/s/a.sh'), tool('b', '/s/b.sh')], {
      tools: [tool('a', '/s/a.sh')],
      diagnostics: [broken('/s/c.sh')],
    });
    expect(result.tools.map((t) => t.name)).toEqual(['a']);
  });

  it('does not keep a name another tool now has, nor a built-in', () => {
    const previous = [tool('b', '/s/b.sh'), tool('find_tools', '<builtin>', 'builtin')];
    const result = keepLastGoodTools(previous, {
      tools: [tool('b', '/other/b.sh')],
      diagnostics: [broken('/s/b.sh'), broken('<builtin>')],
    });
    expect(result.kept).toEqual([]);
  });

  it('matches a tool folder’s diagnostics on its script or folder, not only metadata.yaml', () => {
    const folderTool = tool('list_tasks', '/t/list-tasks/metadata.yaml', 'tool-folder');
    for (const file of [
      '/t/list-tasks/script.ps1',
      '/t/list-tasks',
      '/t/list-tasks/metadata.yaml',
    ]) {
      expect(
        keepLastGoodTools([folderTool], { tools: [], diagnostics: [broken(file)] }).kept,
      ).toEqual([folderTool]);
    }
    expect(
      keepLastGoodTools([folderTool], { tools: [], diagnostics: [broken('/t/other/script.ps1')] })
        .kept,
    ).toEqual([]);
  });
});
