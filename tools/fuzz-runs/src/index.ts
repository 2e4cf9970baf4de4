// Only fuzz tests import this package (a private workspace devDependency); it is never published.

/**
 * FC_RUNS_SCALE, or 1 when it is unset, not a number, infinite or below 1, so a typo never
 * shrinks a suite nor makes it endless.
 */
function readRunsScale(): number {
  const scale = Number(process.env.FC_RUNS_SCALE ?? 1);
  return Number.isFinite(scale) && scale >= 1 ? scale : 1;
}

/**
 * fast-check's `numRuns` for a fuzz property, multiplied by `FC_RUNS_SCALE`.
 *
 * CI runs every property a fixed number of times with a fixed seed (scripts/vitest-setup.ts),
 * so a red run can be replayed; `FC_RUNS_SCALE=20 pnpm vitest run` is the longer run on demand
 * that explores twenty times as many inputs.
 */
export function fuzzRuns(runs: number): number {
  return Math.round(runs * readRunsScale());
}

/**
 * The vitest timeout of a suite whose runs `fuzzRuns` scales: vitest.config.ts's 20 s, scaled
 * alike, because twenty times the inputs take about twenty times as long.
 */
export function fuzzTimeout(): number {
  return Math.round(20_000 * readRunsScale());
}

/**
 * How long one adversarial input may take before a test calls it a complexity bug. Catastrophic
 * backtracking and quadratic scans on these inputs take seconds to minutes (the old
 * `.toolpackignore` translation: 90 s), while a shared 2-core CI machine under load can stall a
 * linear pass for a few hundred milliseconds; the bound sits between the two. It is not scaled:
 * more runs mean more inputs, not slower ones.
 */
export const WORST_CASE_INPUT_MS = 3_000;
