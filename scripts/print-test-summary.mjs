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

/** The reasons a skipped test's title gives, or undefined when it gives none. */
export function describeSkipReason(fullName, pwshDescription) {
  const needs = [...fullName.matchAll(NEEDS)].map((match) => match[1].trim());
  if (fullName.includes(PWSH_TEST_TAG))
    needs.unshift(`PowerShell (${pwshDescription ?? 'none on PATH'})`);
  return needs.length === 0 ? undefined : `needs ${[...new Set(needs)].join(' and ')}`;
}

/** The skipped tests' lines, grouped by reason (the most common first). */
export function formatSkipped(names, pwshDescription) {
  const byReason = new Map();
  for (const name of names) {
    const reason =
      describeSkipReason(name, pwshDescription) ??
      'no reason in the title (not selected by a filter, or add [needs …] to the title)';
    byReason.set(reason, [...(byReason.get(reason) ?? []), name]);
  }
  const groups = [...byReason].sort((a, b) => b[1].length - a[1].length);
  return [
    `skipped tests (${names.length}), by reason:`,
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
  const skippedNames = tests
    .filter(
      (test) => test.status === 'pending' || test.status === 'skipped' || test.status === 'todo',
    )
    .map((test) => test.fullName);
  if (skippedNames.length > 0) console.log(formatSkipped(skippedNames, pwshEngine?.description));
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
