import type { ToolDefinition } from '@toolpack/core';

/**
 * The floor find_tools is measured against: what a first attempt does. A tool scores the
 * number of query words found as substrings of its lower-cased name and description; ties
 * keep the catalogue's order.
 */
export function searchNaively(
  tools: readonly ToolDefinition[],
  query: string,
  limit: number,
): string[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  const scored: { name: string; score: number; order: number }[] = [];
  tools.forEach((tool, order) => {
    const text = `${tool.name} ${tool.description}`.toLowerCase();
    const score = words.filter((word) => text.includes(word)).length;
    if (score > 0) scored.push({ name: tool.name, score, order });
  });
  return scored
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map((entry) => entry.name);
}
