import type { ToolDefinition } from '@toolpack/core';
import { createSeededRandom } from './seeded-random.ts';

export interface SearchQuery {
  query: string;
  /** The tool the query was made from: the right answer. */
  expected: string;
  from: 'description' | 'example';
}

const FILLER = new Set(
  'a an and are as at be by for from in into is it its of on or so that the this to with one all every each'.split(
    ' ',
  ),
);

/**
 * Turns a description into what a user might type instead of it: its first sentence, reduced
 * to its content words, one of them dropped (when three or more are left), the rest shuffled
 * and cut to five. The query thus holds words of the indexed text but never the text itself,
 * and misses a word of it, as a person paraphrasing from memory would.
 */
export function paraphrase(text: string, random: () => number): string {
  const sentence = text.split(/(?<=[.!?])\s/)[0] ?? text;
  const content = [
    ...new Set((sentence.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !FILLER.has(w))),
  ];
  if (content.length >= 3) content.splice(Math.floor(random() * content.length), 1);
  for (let i = content.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [content[i], content[j]] = [content[j] as string, content[i] as string];
  }
  return content.slice(0, 5).join(' ');
}

/**
 * The queries of a corpus: one per tool description and one per input example description,
 * each paraphrased with the `seed`'s choices; a different seed gives held-out queries.
 */
export function makeQueries(tools: readonly ToolDefinition[], seed: number): SearchQuery[] {
  const random = createSeededRandom(seed);
  const queries: SearchQuery[] = [];
  const add = (text: string | undefined, expected: string, from: SearchQuery['from']) => {
    const query = text === undefined ? '' : paraphrase(text, random);
    if (query !== '') queries.push({ query, expected, from });
  };
  for (const tool of tools) {
    add(tool.description, tool.name, 'description');
    for (const example of tool.inputExamples ?? []) add(example.description, tool.name, 'example');
  }
  return queries;
}
