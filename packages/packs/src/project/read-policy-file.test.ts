import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';
import { parsePolicy, readPolicyFile } from './read-policy-file.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures', 'policy');

describe('parsePolicy', { timeout: fuzzTimeout() }, () => {
  it('accepts allow/deny/readOnly and records where the policy came from', () => {
    const { policy, diagnostics } = parsePolicy(
      { allow: ['jira_*'], deny: ['*_delete*'], readOnly: true },
      { path: 'toolpack.yaml', line: 12 },
    );
    expect(diagnostics).toEqual([]);
    expect(policy).toEqual({
      allow: ['jira_*'],
      deny: ['*_delete*'],
      readOnly: true,
      origin: 'toolpack.yaml:12',
    });
  });

  it('treats no value as an empty policy', () => {
    expect(parsePolicy(undefined, { path: 'p.yaml' }).policy).toEqual({ origin: 'p.yaml' });
  });

  it('explains each problem with where it is and how to write a policy, and returns no policy', () => {
    const { policy, diagnostics } = parsePolicy(
      { deny: 'x', readonly: true },
      { path: 'policy.yaml', line: 3 },
    );
    expect(policy).toBeUndefined();
    expect(diagnostics.length).toBeGreaterThanOrEqual(2);
    for (const d of diagnostics) {
      expect(d).toMatchObject({
        severity: 'error',
        code: 'E_POLICY',
        path: 'policy.yaml',
        line: 3,
      });
      expect(d.hint).toMatch(/allow: \[wildcards\], deny: \[wildcards\], readOnly/);
    }
    expect(diagnostics.map((d) => d.message).join(' ')).toMatch(/deny/);
    expect(diagnostics.map((d) => d.message).join(' ')).toMatch(/readonly/);
  });

  it('never throws, whatever the value (fuzz)', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = parsePolicy(value, { path: 'fuzz.yaml' });
        expect(result.policy === undefined).toBe(result.diagnostics.length > 0);
      }),
      { numRuns: fuzzRuns(2_000) },
    );
  });
});

describe('readPolicyFile', () => {
  it('reads a JSON policy file and names it as the origin', async () => {
    const { policy, diagnostics } = await readPolicyFile({
      file: path.join(fixtures, 'policy.json'),
      shownAs: 'policy.json',
    });
    expect(diagnostics).toEqual([]);
    expect(policy).toEqual({
      allow: ['note_*'],
      deny: ['*_delete'],
      readOnly: false,
      origin: 'policy.json',
    });
  });

  it('explains a YAML error and a missing file, with where', async () => {
    const bad = await readPolicyFile({
      file: path.join(fixtures, 'bad-policy.yaml'),
      shownAs: 'bad-policy.yaml',
    });
    expect(bad.policy).toBeUndefined();
    expect(bad.diagnostics[0]).toMatchObject({
      code: 'E_POLICY',
      path: 'bad-policy.yaml',
      message: expect.stringMatching(/not valid YAML/),
    });
    const missing = await readPolicyFile({
      file: path.join(fixtures, 'nope.yaml'),
      shownAs: 'nope.yaml',
    });
    expect(missing.diagnostics[0]).toMatchObject({
      code: 'E_POLICY',
      path: 'nope.yaml',
      hint: 'Check the path given to --policy.',
    });
  });
});
