// docs/architecture.md names the files that do each job; a file moved or renamed without the
// doc would send the next reader to nothing. Checks every repository path the doc writes out
// (in backticks or as a relative link) and every guide it links.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './workspace-packages.ts';

const docsDir = path.join(repoRoot, 'docs');
const text = readFileSync(path.join(docsDir, 'architecture.md'), 'utf8');

/** Paths from the repository root: `packages/...` in backticks, or `](../...)` links. */
function listRepositoryPaths(): string[] {
  const quoted = [...text.matchAll(/`((?:packages|apps|tests)\/[^`\s*]+)`/gu)].map((m) => m[1]);
  const linked = [...text.matchAll(/\]\(\.\.\/([^)#\s]+)/gu)].map((m) => m[1]);
  return [...new Set([...quoted, ...linked])].flatMap((entry) => entry ?? []);
}

/** The other guides it links, relative to docs/. */
function listLinkedGuides(): string[] {
  const linked = [...text.matchAll(/\]\(([a-z0-9-]+\.md)(?:#[^)]*)?\)/gu)].map((m) => m[1]);
  return [...new Set(linked)].flatMap((entry) => entry ?? []);
}

describe('docs/architecture.md', () => {
  it('names only files and folders that exist', () => {
    const paths = listRepositoryPaths();
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((entry) => !existsSync(path.join(repoRoot, entry)))).toEqual([]);
  });

  it('links only guides that exist', () => {
    const guides = listLinkedGuides();
    expect(guides.length).toBeGreaterThan(5);
    expect(guides.filter((guide) => !existsSync(path.join(docsDir, guide)))).toEqual([]);
  });
});
