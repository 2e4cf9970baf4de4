import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError, type SourceSpec, type ToolDefinition } from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import type { CommandContext } from '../../io.ts';
import { resolveSources, type SourceFlagValues } from '../../source-flags.ts';
import { generateCorpus } from './generate-corpus.ts';

export interface CorpusSpec {
  /** `official+generated`: the official tools among the generated ones, queried for the official. */
  kind: 'project' | 'official' | 'generated' | 'official+generated';
  /** For `generated` (and the generated part of `official+generated`): how many tools. */
  size?: number;
}

const DEFAULT_GENERATED_SIZE = 1_000;

export interface Corpus {
  /** What the index holds. */
  tools: ToolDefinition[];
  /** The tools queries are made for (all of `tools`, or the official part of a mix). */
  queried: ToolDefinition[];
}

/** `project`, `official`, `generated` or `generated:N`. */
export function parseCorpus(value: string): CorpusSpec {
  const match = /^(project|official\+generated|official|generated)(?::(\d+))?$/.exec(value.trim());
  const size = match?.[2] === undefined ? undefined : Number(match[2]);
  if (match === null || (size !== undefined && (!match[1]?.endsWith('generated') || size < 1))) {
    throw new ToolpackError('E_USAGE', `Unknown corpus ${JSON.stringify(value)}.`, {
      hint: 'Use project, official, generated[:N] or official+generated[:N] (N generated tools, e.g. generated:5000).',
    });
  }
  return { kind: match[1] as CorpusSpec['kind'], ...(size === undefined ? {} : { size }) };
}

export function describeCorpus(spec: CorpusSpec): string {
  return spec.kind.endsWith('generated')
    ? `${spec.kind}:${spec.size ?? DEFAULT_GENERATED_SIZE}`
    : spec.kind;
}

async function discoverFolder(
  cwd: string,
  sources: SourceSpec[],
  flags: SourceFlagValues,
): Promise<ToolDefinition[]> {
  // The corpus is what is searched, however many: maxTools is a serving limit.
  const resolved = await resolveSources({
    sources,
    flags: { ...flags, maxTools: Number.MAX_SAFE_INTEGER },
    cwd,
  });
  const { tools } = await discoverTools(resolved.options);
  return tools.filter((tool) => tool.source.kind !== 'builtin');
}

/**
 * The tools of a corpus. `project` is what `mcp list` serves here (toolpack.yaml or the source
 * flags); `official` every first-party pack (registry/packs/*) and the examples project
 * (examples/) of the Toolpack checkout at `cwd`, each read from its own toolpack.yaml;
 * `official+generated` the official tools among the generated ones.
 */
export async function loadCorpus(
  spec: CorpusSpec,
  context: CommandContext & { sources: SourceSpec[]; flags: SourceFlagValues; seed: number },
): Promise<Corpus> {
  if (spec.kind === 'official+generated') {
    // The official tools in a crowded catalogue: after the generated ones, so that no ranker
    // wins a tie by catalogue order.
    const official = await loadCorpus({ kind: 'official' }, context);
    const generated = await loadCorpus(
      { kind: 'generated', ...(spec.size === undefined ? {} : { size: spec.size }) },
      context,
    );
    return { tools: [...generated.tools, ...official.tools], queried: official.tools };
  }
  let tools: ToolDefinition[];
  if (spec.kind === 'generated') {
    tools = generateCorpus({ size: spec.size ?? DEFAULT_GENERATED_SIZE, seed: context.seed });
  } else if (spec.kind === 'project') {
    tools = await discoverFolder(context.cwd, context.sources, context.flags);
  } else {
    const packs = path.join(context.cwd, 'registry', 'packs');
    const folders: string[] = await readdir(packs).then(
      (names) => names.sort().map((name) => path.join(packs, name)),
      () => [],
    );
    const examples = path.join(context.cwd, 'examples');
    if (
      await stat(examples).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      folders.push(examples);
    tools = [];
    for (const folder of folders) tools.push(...(await discoverFolder(folder, [], context.flags)));
  }
  if (tools.length === 0) {
    throw new ToolpackError('E_NO_TOOLS', `The ${describeCorpus(spec)} corpus has no tools.`, {
      hint:
        spec.kind === 'official'
          ? 'Run it in a Toolpack checkout (mcp -C <checkout> eval-search --corpus official): it reads registry/packs/* and examples/.'
          : 'Run it in a project with a toolpack.yaml, or pass source flags (--script-root, --module...).',
    });
  }
  return { tools, queried: tools };
}
