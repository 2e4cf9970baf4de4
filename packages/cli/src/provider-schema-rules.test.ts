import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SCHEMA_DIALECT, type DiscoveredTool } from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import { findToolRuleViolations, toListedTool, type SchemaProvider } from '@toolpack/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveSources } from './source-flags.ts';

// Every tool the repository serves (examples/, the official packs, the server's e2e fixture
// projects), listed as tools/list lists it, held to each model provider's documented schema
// rules (packages/server/src/schema-dialect/provider-rules.ts): one refused tool makes a
// provider refuse the whole session.
const repo = path.resolve(import.meta.dirname, '../../..');
const projectsUnder = (dir: string) =>
  readdirSync(path.join(repo, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(dir, entry.name));
const projects = [
  'examples',
  ...projectsUnder('examples'),
  ...projectsUnder('registry/packs'),
  ...projectsUnder('packages/server/src/e2e/fixtures'),
].filter((dir) => readdirSync(path.join(repo, dir)).includes('toolpack.yaml'));

const served: Array<{ project: string; tool: DiscoveredTool }> = [];

beforeAll(async () => {
  for (const project of projects) {
    const cwd = path.join(repo, project);
    const resolved = await resolveSources({ sources: [], flags: { cache: false }, cwd });
    const { tools } = await discoverTools({ ...resolved.options, maxTools: 10_000 });
    served.push(...tools.map((tool) => ({ project, tool })));
  }
}, 120_000);

function violations(dialect: Parameters<typeof toListedTool>[1], providers: SchemaProvider[]) {
  return served.flatMap(({ project, tool }) => {
    const listed = toListedTool(tool, dialect);
    return providers.flatMap((provider) =>
      findToolRuleViolations(listed, provider).map(
        (found) => `${provider} ${project} ${tool.name} ${found}`,
      ),
    );
  });
}

describe('served input schemas against the model providers’ rules', () => {
  it('checks every project’s tools, a multi-set PowerShell command among them', () => {
    expect(projects.length).toBeGreaterThan(15);
    expect(served.length).toBeGreaterThan(100);
    expect(served.some(({ tool }) => (tool.parameterSets?.length ?? 0) > 1)).toBe(true);
  });

  it('the default dialect is accepted by Anthropic, OpenAI and Gemini', () => {
    expect(violations(DEFAULT_SCHEMA_DIALECT, ['anthropic', 'openai', 'gemini'])).toEqual([]);
  });

  it('openai-strict is accepted by OpenAI’s strict mode', () => {
    expect(violations('openai-strict', ['openai-strict'])).toEqual([]);
  });

  it('exact, the full JSON Schema, is not: the rules do refuse what they should', () => {
    const found = violations('exact', ['anthropic', 'gemini']);
    expect(found).toContainEqual(
      expect.stringMatching(/^anthropic \S+parameter-sets-project Find_Widget \(root\): oneOf/),
    );
    expect(found).toContainEqual(
      expect.stringMatching(/^gemini .* keyword additionalProperties is not supported$/),
    );
  });
});
