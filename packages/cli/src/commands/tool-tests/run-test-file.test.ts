import { describe, expect, it } from 'vitest';
import { readNodeTestFailure, readPowerShellFailure } from './run-test-file.ts';

describe('reading why a test file failed', () => {
  it('takes the message run-test.ps1 prints and the line PowerShell points at', () => {
    const output = [
      'ok: called the tool',
      'TOOLPACK_TEST_FAILED: Assertion failed: echoes the text. Expected "hello", got "HELLO".',
      'At /work/tools/echo/test.ps1:7 char:1',
      '+ Assert-ToolpackEqual -Actual $result.structuredContent.text -Expected …',
    ].join('\n');
    expect(readPowerShellFailure(output)).toEqual({
      reason:
        'Assertion failed: echoes the text. Expected "hello", got "HELLO". (at /work/tools/echo/test.ps1:7)',
      detail: 'ok: called the tool',
    });
    // run-test.ps1's caller position for a helper's throw: no column.
    expect(
      readPowerShellFailure(
        'TOOLPACK_TEST_FAILED: shout answered with an error: no\nAt C:\\t\\test.ps1:12\n+ Invoke-ToolpackTool -Name shout\n',
      ),
    ).toMatchObject({ reason: 'shout answered with an error: no (at C:\\t\\test.ps1:12)' });
    expect(readPowerShellFailure('checking\nexit code was 3\n')).toEqual({
      reason: 'exited non-zero after: exit code was 3',
      detail: 'checking\nexit code was 3',
    });
  });

  it('takes the first failing test of node --test TAP, with its error and expected/actual', () => {
    const output = [
      'TAP version 13',
      '# Subtest: adds',
      'ok 1 - adds',
      '# Subtest: counts',
      'not ok 2 - counts',
      '  ---',
      '  duration_ms: 1.2',
      "  location: '/x/count.test.mjs:9:1'",
      "  failureType: 'testCodeFailure'",
      '  error: |-',
      '    Expected values to be strictly equal:',
      '    ',
      '    4 !== 5',
      '    ',
      '  code: ERR_ASSERTION',
      '  expected: 5',
      '  actual: 4',
      "  operator: 'strictEqual'",
      '  stack: |-',
      '    TestContext.<anonymous> (file:///x/count.test.mjs:10:10)',
      '  ...',
      '1..2',
    ].join('\n');
    expect(readNodeTestFailure(output)).toEqual({
      reason: '"counts" failed: Expected values to be strictly equal:',
      detail: [
        'error: |-',
        '  Expected values to be strictly equal:',
        '  ',
        '  4 !== 5',
        '  ',
        'expected: 5',
        'actual: 4',
        "operator: 'strictEqual'",
      ].join('\n'),
    });
    expect(
      readNodeTestFailure('not ok 1 - loads\n  ---\n  error: "Cannot find module \'x\'"\n  ...\n'),
    ).toMatchObject({
      reason: '"loads" failed: Cannot find module \'x\'',
    });
    expect(readNodeTestFailure('ok 1 - fine\n')).toBeUndefined();
  });
});
