// Prints vitest's counts as the last line of a CI run: `N passed, N failed, N skipped`, after
// the skipped tests grouped by why they were skipped.
//
// Why a test is skipped is written in its title (or an enclosing describe's), as the
// condition it needs: `[needs python3]`, `[needs /proc]`. A test that starts PowerShell
// carries PWSH_TEST_TAG instead, and is skipped only when no pwsh is on PATH. A label says
// what a test needs, not what was missing: the summary names only the needs this machine
// lacks, so a test skipped on a machine that has everything its labels name says so instead
// of blaming bubblewrap or PowerShell.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';

const NEEDS = /\[needs ([^\]]+)\]/g;
const POWERSHELL = 'PowerShell';

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

// The needs this summary can check, by the words labels use; any other need is kept as the
// label says (the summary cannot tell whether it was met).
const NEED_CHECKS = [
  [/^(bubblewrap|bwrap)$/i, () => hasCommand('bwrap')],
  [/^(python3|zsh|git|git on PATH)$/i, (need) => hasCommand(need.split(' ')[0])],
  [
    /^postgresql$/i,
    () => hasCommand('initdb') || hasCommand('pg_ctl') || existsSync('/usr/lib/postgresql'),
  ],
  [/^\/proc$/, () => existsSync('/proc/self')],
  [/^\/proc\/self\/fd$/, () => existsSync('/proc/self/fd')],
  [/^linux$/i, () => process.platform === 'linux'],
  [/^(POSIX|a POSIX system|a POSIX shell)$/i, () => process.platform !== 'win32'],
];

/** Whether this machine meets a need: true, false, or undefined when it cannot tell. */
export function isNeedMet(need, pwshDescription) {
  if (need === POWERSHELL) return pwshDescription !== undefined;
  for (const [pattern, check] of NEED_CHECKS) if (pattern.test(need)) return check(need);
  return undefined;
}

// "Linux and bubblewrap" names two needs; "bwrap: <why>" and "TOOLPACK_SOAK=1, opt-in" one
// need each, with what the label adds.
function splitNeeds(label) {
  return label
    .split(/\s+and\s+/)
    .map((need) => need.trim())
    .filter(Boolean);
}

function readNeeds(title) {
  const needs = [...title.matchAll(NEEDS)].flatMap((match) => splitNeeds(match[1]));
  if (title.includes(PWSH_TEST_TAG)) needs.unshift(POWERSHELL);
  return needs;
}

function nameNeed(need, pwshDescription) {
  return need === POWERSHELL ? `${POWERSHELL} (${pwshDescription ?? 'none on PATH'})` : need;
}

/**
 * The reason a skipped test's title gives, else the one its describes give (a test that
 * needs pwsh inside a suite that needs the Inspector was skipped for pwsh when it has the
 * Inspector), or undefined when none does. Only the needs this machine lacks (or that cannot
 * be checked) are named; when it has them all, the reason says so.
 */
export function describeSkipReason(test, pwshDescription) {
  let needs = readNeeds(test.title);
  if (needs.length === 0) needs = readNeeds(test.ancestorTitles.join(' '));
  if (needs.length === 0) return undefined;
  needs = [...new Set(needs)];
  const unmet = needs.filter((need) => isNeedMet(need, pwshDescription) !== true);
  if (unmet.length === 0)
    return `skipped by the test's own condition: this machine has ${needs
      .map((need) => nameNeed(need, pwshDescription))
      .join(' and ')}`;
  return `needs ${unmet.map((need) => nameNeed(need, pwshDescription)).join(' and ')}`;
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
