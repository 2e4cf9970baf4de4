import { describe, expect, it } from 'vitest';
import { pickConditionFlags, readNodeOptionsConditionFlags } from './condition-flags.ts';

describe('pickConditionFlags', () => {
  it('keeps every spelling of --conditions and drops every other flag', () => {
    expect(
      pickConditionFlags([
        '--inspect-brk',
        '--conditions=a',
        '--conditions',
        'b',
        '-C',
        'c',
        '-Cd',
        '--import',
        'tsx',
        '--conditions',
      ]),
    ).toEqual(['--conditions=a', '--conditions', 'b', '-C', 'c', '-Cd']);
  });
});

describe('readNodeOptionsConditionFlags', () => {
  it('reads the condition flags among the others in NODE_OPTIONS', () => {
    expect(readNodeOptionsConditionFlags('  --max-old-space-size=64 -C b --conditions=c ')).toEqual(
      ['-C', 'b', '--conditions=c'],
    );
    expect(readNodeOptionsConditionFlags('')).toEqual([]);
  });
});
