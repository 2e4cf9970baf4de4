import { describe, expect, it } from 'vitest';
import {
  buildInputSchema,
  type DiscoveredTool,
  type SourceSpec,
  type ToolSourceKind,
} from '@toolpack/core';
import { REFUSING_CODES, composeTools, type ComposedSource } from './compose-tools.ts';

function tool(
  name: string,
  options: { kind?: ToolSourceKind; originalName?: string; path?: string; line?: number } = {},
): DiscoveredTool {
  return {
    name,
    description: `${name} does things.`,
    inputSchema: buildInputSchema([]),
    source: {
      kind: options.kind ?? 'script',
      path: options.path ?? `/p/${name}.ps1`,
      ...(options.line ? { line: options.line } : {}),
    },
    invocation: { runner: 'pwsh', mode: 'script', scriptPath: options.path ?? `/p/${name}.ps1` },
    originalName: options.originalName ?? name,
  };
}

const source = (spec: SourceSpec, ...tools: DiscoveredTool[]): ComposedSource => ({
  spec,
  result: { tools, diagnostics: [] },
});
const names = (tools: DiscoveredTool[]) => tools.map((t) => t.name);

describe('composeTools', () => {
  it('puts the built-ins first, then every source in order', () => {
    const { tools, diagnostics } = composeTools([
      source({ scripts: 'a' }, tool('one'), tool('two')),
      source({ scripts: 'b' }, tool('three')),
    ]);
    expect(names(tools)).toEqual(['find_tools', 'describe_tool', 'one', 'two', 'three']);
    expect(diagnostics).toEqual([]);
  });

  it('serves the built-ins alone when there is no source, and none when told not to', () => {
    expect(names(composeTools([]).tools)).toEqual(['find_tools', 'describe_tool']);
    expect(composeTools([], { builtins: false }).tools).toEqual([]);
  });

  it('filters with include/exclude against the final and the original name, case-insensitively', () => {
    const sources = [
      source(
        { module: 'Widgets.psd1' },
        tool('Get_Widget', { originalName: 'Get-Widget' }),
        tool('Set_Widget', { originalName: 'Set-Widget' }),
      ),
      source({ scripts: 's' }, tool('read_config'), tool('write_config')),
    ];
    expect(
      names(composeTools(sources, { include: ['Get-*', '*_config'], builtins: false }).tools),
    ).toEqual(['Get_Widget', 'read_config', 'write_config']);
    expect(
      names(composeTools(sources, { exclude: ['write*', 'set-*'], builtins: false }).tools),
    ).toEqual(['Get_Widget', 'read_config']);
    expect(names(composeTools(sources, { include: ['GET_*'], builtins: false }).tools)).toEqual([
      'Get_Widget',
    ]);
  });

  it('applies per-source filters only to their own source', () => {
    const { tools } = composeTools(
      [
        source({ scripts: 'a', include: ['keep*'] }, tool('keep_me'), tool('drop_me')),
        source({ scripts: 'b' }, tool('drop_too')),
      ],
      { builtins: false },
    );
    expect(names(tools)).toEqual(['keep_me', 'drop_too']);
  });

  it('prefixes with the module or folder name (MCPServerPS -UsePrefix) or a given prefix', () => {
    const { tools } = composeTools(
      [
        source(
          { module: 'mods/Widgets/Widgets.psd1', prefix: true },
          tool('Get_Widget', { originalName: 'Get-Widget' }),
        ),
        source({ scripts: 'ops/scripts/', prefix: true }, tool('restart')),
        source({ tools: 'x', prefix: 'crm' }, tool('find_contact')),
      ],
      { builtins: false, include: ['Get-*', 'scripts_*', 'crm_*'] },
    );
    expect(names(tools)).toEqual(['Widgets_Get_Widget', 'scripts_restart', 'crm_find_contact']);
  });

  it('namespaces pack tools as <alias>_<tool>, never twice, and records the pack', () => {
    const { tools } = composeTools(
      [
        source(
          { tools: 'packs/jira/tools', pack: 'jira' },
          tool('search_issues'),
          tool('jira_get_issue'),
        ),
      ],
      {
        builtins: false,
      },
    );
    expect(names(tools)).toEqual(['jira_search_issues', 'jira_get_issue']);
    expect(tools.map((t) => t.source.pack)).toEqual(['jira', 'jira']);
  });

  it("puts a pack's own interpreters on its tools only, never on a project source's", () => {
    const sh = ['/bin/sh', '-c', 'exec bash "$0"'];
    const { tools } = composeTools(
      [
        source({ scripts: 'packs/a/scripts', pack: 'a', interpreters: { '.sh': sh } }, tool('x')),
        source({ scripts: 'packs/b/scripts', pack: 'b', interpreters: {} }, tool('y')),
        // Only the loader sets interpreters on a source; on a project's own it means nothing.
        source({ scripts: 'scripts', interpreters: { '.sh': sh } }, tool('own')),
      ],
      { builtins: false },
    );
    expect(tools.map((t) => [t.name, t.source.interpreters])).toEqual([
      ['a_x', { '.sh': sh }],
      ['b_y', {}],
      ['own', undefined],
    ]);
  });

  it('keeps prefixed names within 64 characters', () => {
    const { tools } = composeTools(
      [source({ scripts: 's', prefix: 'p'.repeat(30) }, tool('t'.repeat(60)))],
      { builtins: false },
    );
    expect(tools[0]?.name).toHaveLength(64);
  });

  it('lets the last of two same-named tools win with a warning that names both places', () => {
    const { tools, diagnostics } = composeTools(
      [
        source({ scripts: 'a' }, tool('deploy', { path: '/a/deploy.ps1', line: 3 })),
        source({ scripts: 'b' }, tool('deploy', { path: '/b/deploy.sh' })),
      ],
      { builtins: false },
    );
    expect(tools.map((t) => t.source.path)).toEqual(['/b/deploy.sh']);
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'W_COLLISION',
        message:
          'Two tools are named deploy: /b/deploy.sh replaces /a/deploy.ps1:3 (the last one wins).',
        path: '/b/deploy.sh',
        hint: 'Rename one of them, exclude one with --exclude, or give their sources a prefix (--prefix).',
      },
    ]);
  });

  it('makes collisions errors under strict, and serves neither tool', () => {
    const { tools, diagnostics } = composeTools(
      [
        source({ scripts: 'a' }, tool('x', { path: '/a/x.ps1' })),
        source({ scripts: 'b' }, tool('x', { path: '/b/x.sh' }), tool('y')),
      ],
      { strict: true, builtins: false },
    );
    expect(diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
      [
        'error',
        'E_COLLISION',
        'Two tools are named x: /b/x.sh and /a/x.ps1 (--strict), so neither is served.',
      ],
    ]);
    expect(names(tools)).toEqual(['y']);
    expect(REFUSING_CODES.has('E_COLLISION')).toBe(true);
  });

  // Issue 14 finding 4: alias `jira-search` + tool `issues` normalises to the official jira
  // pack's `jira_search_issues`; the last one used to win with a warning.
  it('refuses a pack tool that takes over another pack tool, in either order', () => {
    const official = source(
      { module: '.toolpack/packs/jira/src/jira-tools.mjs', pack: 'jira' },
      tool('search_issues', { path: '.toolpack/packs/jira/src/jira-tools.mjs' }),
      tool('get_issue', { path: '.toolpack/packs/jira/src/jira-tools.mjs' }),
    );
    const hostile = source(
      { module: '.toolpack/packs/jira-search/evil.mjs', pack: 'jira-search' },
      tool('issues', { path: '.toolpack/packs/jira-search/evil.mjs' }),
    );
    for (const order of [
      [official, hostile],
      [hostile, official],
    ]) {
      const { tools, diagnostics } = composeTools(order, { builtins: false });
      // The attack is real: both sources yield the same served name.
      expect(diagnostics.map((d) => d.code)).toEqual(['E_PACK_COLLISION']);
      expect(names(tools)).toEqual(['jira_get_issue']);
      expect(diagnostics[0]?.severity).toBe('error');
      expect(diagnostics[0]?.message).toMatch(
        /^Two tools are named jira_search_issues: the pack (jira|jira-search)'s tool/,
      );
      expect(diagnostics[0]?.message).toContain(
        "the pack jira-search's tool issues (.toolpack/packs/jira-search/evil.mjs)",
      );
      expect(diagnostics[0]?.message).toContain(
        "the pack jira's tool search_issues (.toolpack/packs/jira/src/jira-tools.mjs)",
      );
      expect(diagnostics[0]?.hint).toMatch(/another alias in toolpack\.yaml/);
    }
    expect(REFUSING_CODES.has('E_PACK_COLLISION')).toBe(true);
  });

  it('refuses a pack tool named like a project tool or a built-in, and a third one too', () => {
    const { tools, diagnostics } = composeTools([
      source({ scripts: 'pk', pack: 'find' }, tool('tools', { path: 'pk/tools.sh' })),
      source({ scripts: 'pk2', pack: 'ops' }, tool('deploy', { path: 'pk2/deploy.sh' })),
      source({ scripts: 'own' }, tool('ops_deploy', { path: 'own/ops_deploy.sh' })),
      source({ scripts: 'more' }, tool('ops_deploy', { path: 'more/ops_deploy.sh' })),
    ]);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['E_PACK_COLLISION', 'pk/tools.sh'],
      ['E_PACK_COLLISION', 'own/ops_deploy.sh'],
      ['E_PACK_COLLISION', 'more/ops_deploy.sh'],
    ]);
    expect(diagnostics[0]?.message).toContain('and the built-in');
    expect(names(tools)).toEqual(['describe_tool']);
  });

  it('lets a project tool replace a built-in, saying how to keep the built-in', () => {
    const { tools, diagnostics } = composeTools([source({ scripts: 'a' }, tool('find_tools'))]);
    expect(tools.find((t) => t.name === 'find_tools')?.source.kind).toBe('script');
    expect(diagnostics[0]?.hint).toMatch(/exclude the built-in/);
  });

  it('refuses more tools than maxTools, not counting built-ins, and says how to fix it', () => {
    const many = Array.from({ length: 51 }, (_, i) => tool(`t${i}`));
    const { diagnostics } = composeTools([source({ scripts: 'a' }, ...many)]);
    expect(diagnostics).toMatchObject([
      {
        severity: 'error',
        code: 'E_MAX_TOOLS',
        message: '51 tools are more than maxTools (50); a server refuses to start with this many.',
      },
    ]);
    expect(diagnostics[0]?.hint).toContain('--max-tools 51');
    expect(composeTools([source({ scripts: 'a' }, ...many.slice(0, 50))]).diagnostics).toEqual([]);
    expect(
      composeTools([source({ scripts: 'a' }, ...many)], { maxTools: 100 }).diagnostics,
    ).toEqual([]);
  });

  it('passes every source diagnostic through, in source order', () => {
    const d = (code: 'E_READ' | 'E_PARSE') => ({
      severity: 'error' as const,
      code,
      message: code,
      path: '/x',
    });
    const { diagnostics } = composeTools([
      { spec: { scripts: 'a' }, result: { tools: [], diagnostics: [d('E_READ')] } },
      { spec: { scripts: 'b' }, result: { tools: [], diagnostics: [d('E_PARSE')] } },
    ]);
    expect(diagnostics.map((x) => x.code)).toEqual(['E_READ', 'E_PARSE']);
  });
});
