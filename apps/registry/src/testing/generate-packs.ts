import { buildTarball } from '@toolpack/packs/testing';
import type { VersionDoc } from '../documents.ts';

/**
 * Generated catalogues for the registry's benchmark (bench/registry.ts): plausible names,
 * descriptions, tags and tools drawn from a small vocabulary, reproducible from a seed.
 */

export const WORDS = [
  'github',
  'gitlab',
  'jira',
  'issue',
  'tracker',
  'sprint',
  'deploy',
  'kubernetes',
  'docker',
  'cloud',
  'storage',
  'bucket',
  'database',
  'postgres',
  'query',
  'report',
  'chart',
  'metrics',
  'monitoring',
  'alert',
  'log',
  'search',
  'index',
  'email',
  'calendar',
  'meeting',
  'slack',
  'chat',
  'message',
  'weather',
  'forecast',
  'finance',
  'invoice',
  'payment',
  'customer',
  'crm',
  'ticket',
  'support',
  'file',
  'folder',
  'image',
  'video',
  'audio',
  'translate',
  'text',
  'summary',
  'json',
  'yaml',
  'csv',
  'spreadsheet',
  'http',
  'api',
  'webhook',
  'secret',
  'vault',
  'backup',
  'restore',
  'network',
  'dns',
  'certificate',
  'browser',
  'scrape',
  'pdf',
  'document',
  'wiki',
  'notes',
  'todo',
  'task',
  'project',
  'time',
] as const;

export const TAGS = [
  'MCPTools',
  'devops',
  'productivity',
  'data',
  'cloud',
  'communication',
  'security',
  'monitoring',
  'files',
  'web',
  'finance',
  'ai',
  'powershell',
  'python',
  'bash',
  'read-only',
] as const;

/** A small, fast, seedable PRNG (mulberry32), so every run generates the same catalogue. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function pickSome<T>(random: () => number, items: readonly T[], min: number, max: number): T[] {
  const count = min + Math.floor(random() * (max - min + 1));
  const chosen = new Set<T>();
  while (chosen.size < count) chosen.add(pick(random, items));
  return [...chosen];
}

export interface GeneratedPack {
  name: string;
  description: string;
  tags: string[];
  tools: { name: string; description: string }[];
}

export function generatePack(index: number, random: () => number, prefix = 'pack'): GeneratedPack {
  const topic = pick(random, WORDS);
  const words = pickSome(random, WORDS, 6, 14);
  const tags =
    random() < 0.7
      ? ['MCPTools', ...pickSome(random, TAGS.slice(1), 1, 3)]
      : pickSome(random, TAGS.slice(1), 1, 4);
  const tools = pickSome(random, WORDS, 1, 8).map((word) => ({
    name: `${topic}_${word}`,
    description: `Works with ${word} in ${topic}.`,
  }));
  return {
    name: `${prefix}-${index}-${topic}`,
    description: `Tools for ${topic}: ${words.join(' ')}.`,
    tags: [...new Set(tags)],
    tools: tools.filter((tool, i) => tools.findIndex((t) => t.name === tool.name) === i),
  };
}

/** A VersionDoc for the store, as a publish of `pack` would record it. */
export function toGeneratedVersionDoc(pack: GeneratedPack, version = '1.0.0'): VersionDoc {
  return {
    name: pack.name,
    version,
    description: pack.description,
    tags: pack.tags,
    tools: pack.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: {
        type: 'object',
        properties: { target: { type: 'string', description: 'What to work on.' } },
        required: ['target'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    })),
    env: [],
    dist: {
      tarball: '',
      integrity: `sha512-${'A'.repeat(86)}==`,
      size: 1000,
      fileCount: pack.tools.length + 1,
    },
  };
}

/** A real pack tarball (toolpack.yaml and one header script per tool) that publishes cleanly. */
export function toGeneratedTarball(pack: GeneratedPack, version = '1.0.0'): Buffer {
  const manifest = [
    `name: ${pack.name}`,
    `version: ${version}`,
    `description: ${JSON.stringify(pack.description)}`,
    `tags: [${pack.tags.join(', ')}]`,
    'sources:',
    '  - scripts: scripts',
    '',
  ].join('\n');
  return buildTarball([
    { path: 'package/toolpack.yaml', data: manifest },
    ...pack.tools.map((tool) => ({
      path: `package/scripts/${tool.name}.sh`,
      data: `#!/usr/bin/env bash\n# DESCRIPTION ${JSON.stringify(tool.description)}\n# PARAM target AS string DESCRIPTION "What to work on."\necho '{}'\n`,
    })),
  ]);
}
