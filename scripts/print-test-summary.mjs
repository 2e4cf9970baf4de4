// Prints vitest's counts as the last line of a CI run: `N passed, N failed, N skipped`.
import { readFileSync } from 'node:fs';
import { PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';

const file = process.argv[2] ?? '.vitest/results.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.log(`tests: no report at ${file} (${error.message})`);
  console.log('0 passed, 1 failed');
  process.exit(0);
}
const skipped = report.numPendingTests + report.numTodoTests;
const skippedNames = report.testResults
  .flatMap((file) => file.assertionResults)
  .filter(
    (test) => test.status === 'pending' || test.status === 'skipped' || test.status === 'todo',
  )
  .map((test) => test.fullName);
if (skippedNames.length > 0) {
  console.log(`skipped tests:\n${skippedNames.map((name) => `  - ${name}`).join('\n')}`);
}
// Which PowerShell ran how many PowerShell tests (titles carry PWSH_TEST_TAG).
const pwshTests = report.testResults
  .flatMap((file) => file.assertionResults)
  .filter((test) => test.fullName.includes(PWSH_TEST_TAG));
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
