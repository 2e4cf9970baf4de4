// Prints vitest's counts as the last line of a CI run: `N passed, N failed, N skipped`, after
// the skipped tests grouped by why they were skipped.
//
// Why a test is skipped is written in its title (or an enclosing describe's), as the
// condition it needs: `[needs python3]`, `[needs /proc]`. A test that starts PowerShell
// carries PWSH_TEST_TAG instead, and is skipped only when no pwsh is on PATH.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';

const NEEDS = /\[needs ([^\]]+)\]/g;

function readNeeds(title, pwshDescription) {
  const needs = [...title.matchAll(NEEDS)].map((match) => match[1].trim());
  if (title.includes(PWSH_TEST_TAG))
    needs.unshift(`PowerShell (${pwshDescription ?? 'none on PATH'})`);
  return needs;
}

/**
 * The reason a skipped test's title gives, else the one its describes give (a test that
 * needs pwsh inside a suite that needs the Inspector was skipped for pwsh when it has the
 * Inspector), or undefined when none does.
 */
export function describeSkipReason(test, pwshDescription) {
  let needs = readNeeds(test.title, pwshDescription);
  if (needs.length === 0) needs = readNeeds(test.ancestorTitles.join(' '), pwshDescription);
  return needs.length === 0 ? undefined : `needs ${[...new Set(needs)].join(' and ')}`;
}

/** The skipped tests' lines, grouped by reason (the most common first). */
export function formatSkipped(tests, pwshDescription) {
  const byReason = new Map();
  for (const test of tests) {
    const reason =
      describeSkipReason(test, pwshDescription) ??
      'no reason in the title (not selected by a filter, or add [needs …] to the title)';
    byReason.set(reason, [...(byReason.get(reason) ?? []), test.fullName]);
  }
  const groups = [...byReason].sort((a, b) => b[1].length - a[1].length);
  return [
    `skipped tests (${tests.length}), by reason:`,
    ...groups.flatMap(([reason, tests]) => [
      `  ${reason} (${tests.length}):`,
      ...tests.map((name) => `    - ${name}`),
    ]),
  ].join('\n');
}

function printSummary(file) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.log(`tests: no report at ${file} (${error.message})`);
    console.log('0 passed, 1 failed');
    return;
  }
  const skipped = report.numPendingTests + report.numTodoTests;
  const tests = report.testResults.flatMap((file) => file.assertionResults);
  const skippedTests = tests.filter(
    (test) => test.status === 'pending' || test.status === 'skipped' || test.status === 'todo',
  );
  if (skippedTests.length > 0) console.log(formatSkipped(skippedTests, pwshEngine?.description));
  // Which PowerShell ran how many PowerShell tests (titles carry PWSH_TEST_TAG).
  const pwshTests = tests.filter((test) => test.fullName.includes(PWSH_TEST_TAG));
  const count = (status) => pwshTests.filter((test) => test.status === status).length;
  console.log(
    `PowerShell tests: ${count('passed')} passed, ${count('failed')} failed, ` +
      `${pwshTests.length - count('passed') - count('failed')} skipped, on ` +
      (pwshEngine?.description ?? 'no PowerShell (none on PATH)'),
  );
  // A suite that failed to load has no assertion results; count it as a failure.
  const brokenFiles = report.testResults.filter(
    (file) => file.status === 'failed' && file.assertionResults.length === 0,
  ).length;
  console.log(
    `${report.numPassedTests} passed, ${report.numFailedTests + brokenFiles} failed, ${skipped} skipped`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  printSummary(process.argv[2] ?? '.vitest/results.json');
