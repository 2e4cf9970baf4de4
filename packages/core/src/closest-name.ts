/** Levenshtein distance, for "did you mean" hints; long or very different strings stop early. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3 || a.length > 64 || b.length > 64)
    return Math.max(a.length, b.length);
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
      current.push(
        Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate `word` was most likely meant to be: equal ignoring case, `-`, `_` and
 * spaces, or within `maxDistance` edits. Undefined when nothing is close.
 */
export function findClosestName(
  word: string,
  candidates: Iterable<string>,
  maxDistance = 2,
): string | undefined {
  const squash = (text: string): string => text.toLowerCase().replace(/[-_\s]/g, '');
  const target = squash(word);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(squash(candidate), target);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= maxDistance ? best : undefined;
}
