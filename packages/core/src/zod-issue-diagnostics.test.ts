import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createIssueDiagnostics, formatIssuePath } from './zod-issue-diagnostics.ts';

describe('createIssueDiagnostics', () => {
  const schema = z.strictObject({ packs: z.array(z.strictObject({ name: z.string() })) });
  const issues = () => {
    const parsed = schema.safeParse({ packs: [{ name: 1 }] });
    if (parsed.success) throw new Error('expected issues');
    return parsed.error.issues;
  };

  it('words each issue as its path and zod message, at the place the caller locates', () => {
    expect(
      createIssueDiagnostics(issues(), {
        code: 'E_LOCKFILE',
        locate: (path) => ({ path: 'toolpack.lock', line: path.length }),
        hint: () => 'Write it again.',
      }),
    ).toEqual([
      {
        severity: 'error',
        code: 'E_LOCKFILE',
        message: 'packs.0.name: expected string, received number.',
        path: 'toolpack.lock',
        line: 3,
        hint: 'Write it again.',
      },
    ]);
  });

  it('lets the caller word the message', () => {
    const [diagnostic] = createIssueDiagnostics(issues(), {
      code: 'E_LOCKFILE',
      severity: 'warning',
      locate: () => ({ path: 'x' }),
      describe: (issue, path) => `at ${formatIssuePath(path)}: ${issue.message}`,
    });
    expect(diagnostic).toEqual({
      severity: 'warning',
      code: 'E_LOCKFILE',
      message: 'at packs.0.name: Invalid input: expected string, received number',
      path: 'x',
    });
  });

  it('names the value itself (root)', () => {
    expect(formatIssuePath([])).toBe('(root)');
  });
});
