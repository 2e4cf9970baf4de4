import { describe, expect, it, vi } from 'vitest';
import { parseDocument } from 'yaml';
import { parseLocatedYaml } from './located-yaml.ts';

describe('parseLocatedYaml', () => {
  const text = [
    'name: demo',
    'tools:',
    '  - id: a',
    '    with:',
    '      x: 1',
    '  - id: b',
    '',
  ].join('\n');

  it('gives the value and the line of any path, or of its nearest parent', () => {
    const located = parseLocatedYaml(text);
    expect(located.problems).toEqual([]);
    expect(located.value).toEqual({
      name: 'demo',
      tools: [{ id: 'a', with: { x: 1 } }, { id: 'b' }],
    });
    expect(located.lineOf([])).toBe(1);
    expect(located.lineOf(['tools', 0, 'with', 'x'])).toBe(5);
    expect(located.lineOf(['tools', 1])).toBe(6);
    expect(located.lineOf(['tools', 1, 'missing'])).toBe(6);
    expect(located.keysOf(['tools', 0])).toEqual([
      { key: 'id', line: 3 },
      { key: 'with', line: 4 },
    ]);
    expect(located.keysOf(['name'])).toEqual([]);
  });

  it('reports each syntax error with its line and no value', () => {
    const located = parseLocatedYaml('a: 1\na: 2\n');
    expect(located.value).toBeUndefined();
    expect(located.problems).toEqual([
      { kind: 'syntax', message: expect.stringMatching(/unique/i) as unknown, line: 2 },
    ]);
  });

  it('refuses a key that is a mapping or a list, with its line and without a process warning', () => {
    // A JSON object with one quote missing, read as YAML, makes a mapping a key like this one.
    const text = 'name: x\nlist:\n  ? [a, b]\n  : 1\n';
    // Captured, not printed: yaml warns through process.emitWarning.
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      // yaml alone turns the key into a string and prints a warning on the user's terminal.
      expect(parseDocument(text).toJS()).toEqual({ name: 'x', list: { '[ a, b ]': 1 } });
      expect(emitWarning).toHaveBeenCalledTimes(1);
      emitWarning.mockClear();
      const located = parseLocatedYaml(text);
      expect(located.value).toBeUndefined();
      expect(located.problems).toEqual([
        { kind: 'syntax', message: expect.stringMatching(/plain text/) as unknown, line: 3 },
      ]);
      expect(emitWarning).not.toHaveBeenCalled();
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('refuses a document whose aliases would expand without end', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 12; i += 1)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(', ')}]`,
      );
    const located = parseLocatedYaml(bomb.join('\n'));
    expect(located.value).toBeUndefined();
    expect(located.problems.map((p) => p.kind)).toEqual(['unconvertible']);
  });
});
