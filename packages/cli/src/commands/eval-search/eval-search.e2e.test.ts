import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMcp } from '../../testing/run-mcp.ts';
import type { EvalSearchReport } from './index.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');
const examples = path.join(repo, 'examples');

describe('mcp eval-search', () => {
  it('measures the project (default) and the official corpus, as a table and as --json', () => {
    const table = runMcp(['eval-search'], { cwd: examples });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^CORPUS +QUERIES +TOOLS/);
    expect(table.stdout).toMatch(/\nproject +seed 1 +\d+/);

    const json = runMcp(['eval-search', '--corpus', 'official', '--json'], { cwd: repo });
    expect(json.code, json.stderr).toBe(0);
    const [official] = (JSON.parse(json.stdout) as EvalSearchReport).results;
    expect(official).toMatchObject({ corpus: 'official', queries: 'seed 1' });
    expect(official?.tools).toBeGreaterThan(30);
    expect(official?.findTools.recallAt5).toBeGreaterThanOrEqual(0.9);
  });

  it('says what is wrong with a bad corpus or seed (exit 2)', () => {
    const bad = runMcp(['eval-search', '--corpus', 'nope'], { cwd: examples });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown corpus "nope"/);
    const seed = runMcp(['eval-search', '--seed', 'x'], { cwd: examples });
    expect(seed.code).toBe(2);
  });
});
