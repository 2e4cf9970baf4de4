import type { ToolDefinition } from '@toolpack/core';
import { splitWords } from './split-words.ts';

export interface ToolMatch {
  name: string;
  description: string;
  inputSchema: ToolDefinition['inputSchema'];
  score: number;
}

/** find_tools' ranking, built once per served tool set and asked any number of times. */
export interface ToolSearchIndex {
  readonly size: number;
  /** The best `limit` tools for the words of `query`, best first; ties by name. */
  search(query: string, limit?: number): ToolMatch[];
}

// BM25F: a word counts by where it is found. The name is what a client sees first and what
// an author chose most carefully; parameter names tell tools with the same verb apart
// (`-Project` vs `-Repository`); descriptions of parameters and examples are long and loose.
const FIELD_WEIGHTS = {
  name: 3,
  title: 2,
  description: 1,
  parameters: 1.5,
  parameterDescriptions: 0.5,
  examples: 0.5,
} as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

/** How fast repeating a word stops adding to a tool's score (BM25's k1). */
const SATURATION = 1.2;
/** How much a long field is penalised against the average (BM25's b). */
const LENGTH_NORMALISATION = 0.75;
/** A query word matching only the start of a word (`notif`) counts this much of a whole one. */
const PREFIX_FACTOR = 0.5;
/** Shorter query words match whole words only: `re` would otherwise match half the catalogue. */
const MIN_PREFIX_LENGTH = 3;

interface SchemaNode {
  properties?: Record<string, { description?: unknown }>;
  oneOf?: SchemaNode[];
}

function collectParameters(schema: SchemaNode, names: string[], descriptions: string[]): void {
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    names.push(name);
    if (typeof property?.description === 'string') descriptions.push(property.description);
  }
  for (const branch of schema.oneOf ?? []) collectParameters(branch, names, descriptions);
}

function readFields(tool: ToolDefinition): Record<Field, string[]> {
  const names: string[] = [];
  const descriptions: string[] = [];
  collectParameters(tool.inputSchema as SchemaNode, names, descriptions);
  return {
    name: splitWords(tool.name),
    title: splitWords(tool.title ?? ''),
    description: splitWords(tool.description),
    // A parameter set repeats its shared parameters: each name counts once.
    parameters: [...new Set(names.flatMap(splitWords))],
    parameterDescriptions: [...new Set(descriptions)].flatMap(splitWords),
    examples: (tool.inputExamples ?? []).flatMap((example) =>
      splitWords(example.description ?? ''),
    ),
  };
}

interface Posting {
  tool: number;
  /** The word's field-weighted, length-normalised frequency in the tool. */
  weight: number;
}

/**
 * Indexes `tools` for find_tools (BM25F over name, title, description, parameter names and
 * descriptions, and example descriptions). Pure; costs one pass over the tools, so the
 * server builds it once per reload and each query only walks the postings of its words.
 */
export function createToolSearchIndex(tools: readonly ToolDefinition[]): ToolSearchIndex {
  const fieldsOf = tools.map(readFields);
  const averageLength = Object.fromEntries(
    FIELDS.map((field) => [
      field,
      Math.max(
        1,
        fieldsOf.reduce((sum, fields) => sum + fields[field].length, 0) / Math.max(1, tools.length),
      ),
    ]),
  ) as Record<Field, number>;

  const postings = new Map<string, Posting[]>();
  fieldsOf.forEach((fields, tool) => {
    const weights = new Map<string, number>();
    for (const field of FIELDS) {
      const words = fields[field];
      if (words.length === 0) continue;
      const norm =
        1 - LENGTH_NORMALISATION + (LENGTH_NORMALISATION * words.length) / averageLength[field];
      for (const word of words)
        weights.set(word, (weights.get(word) ?? 0) + FIELD_WEIGHTS[field] / norm);
    }
    for (const [word, weight] of weights) {
      let list = postings.get(word);
      if (list === undefined) postings.set(word, (list = []));
      list.push({ tool, weight });
    }
  });
  const vocabulary = [...postings.keys()].sort();
  const inverseFrequency = new Map<string, number>();
  for (const [word, list] of postings)
    inverseFrequency.set(
      word,
      Math.log(1 + (tools.length - list.length + 0.5) / (list.length + 0.5)),
    );

  /** The indexed words `word` starts (itself excluded), from the sorted vocabulary. */
  const extensionsOf = (word: string): string[] => {
    let low = 0;
    let high = vocabulary.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((vocabulary[middle] as string) < word) low = middle + 1;
      else high = middle;
    }
    const found: string[] = [];
    for (let i = low; i < vocabulary.length && (vocabulary[i] as string).startsWith(word); i++)
      if (vocabulary[i] !== word) found.push(vocabulary[i] as string);
    return found;
  };

  return {
    size: tools.length,
    search(query, limit = 10) {
      const scores = new Map<number, number>();
      for (const word of new Set(splitWords(query))) {
        // Per query word, a tool gets its best match: a whole word, or else its best prefix.
        const best = new Map<number, number>();
        const add = (indexed: string, factor: number) => {
          const idf = (inverseFrequency.get(indexed) ?? 0) * factor;
          for (const { tool, weight } of postings.get(indexed) ?? []) {
            const score = (idf * weight * (SATURATION + 1)) / (weight + SATURATION);
            if (score > (best.get(tool) ?? 0)) best.set(tool, score);
          }
        };
        add(word, 1);
        if (word.length >= MIN_PREFIX_LENGTH)
          for (const extension of extensionsOf(word)) add(extension, PREFIX_FACTOR);
        for (const [tool, score] of best) scores.set(tool, (scores.get(tool) ?? 0) + score);
      }
      return [...scores]
        .map(([index, score]) => ({ tool: tools[index] as ToolDefinition, score }))
        .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1))
        .slice(0, limit)
        .map(({ tool, score }) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          score,
        }));
    },
  };
}
