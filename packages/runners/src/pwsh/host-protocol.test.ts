import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHostMessage } from './host-protocol.ts';
import { createResultFromHost } from './pwsh-runner.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

describe('host protocol', { timeout: fuzzTimeout() }, () => {
  it('parses the host messages and fills gaps with safe defaults', () => {
    expect(parseHostMessage('{"type":"hello","token":"t","pid":5,"psVersion":"7.4.6"}')).toEqual({
      type: 'hello',
      token: 't',
      pid: 5,
      psVersion: '7.4.6',
    });
    expect(parseHostMessage('{"type":"log","id":"1","level":"verbose","message":"m"}')).toEqual({
      type: 'log',
      id: '1',
      level: 'info',
      message: 'm',
    });
    expect(parseHostMessage('{"type":"result","id":"1","kind":"weird"}')).toMatchObject({
      kind: 'none',
      stopped: false,
      errorCount: 0,
    });
    expect(
      parseHostMessage(
        JSON.stringify({
          type: 'ask',
          id: '1',
          askId: '2',
          message: 'Which?',
          fields: [
            {
              name: 'choice',
              title: '',
              choices: [{ value: 'a', description: 'A' }, { value: 3 }],
            },
            { title: 'no name' },
            'junk',
          ],
        }),
      ),
    ).toEqual({
      type: 'ask',
      id: '1',
      askId: '2',
      message: 'Which?',
      fields: [{ name: 'choice', choices: [{ value: 'a', description: 'A' }] }],
      secret: null,
    });
    expect(
      parseHostMessage('{"type":"ask","id":"1","askId":"3","secret":"a secure string"}'),
    ).toMatchObject({ fields: [], secret: 'a secure string' });
    expect(parseHostMessage('{"type":"ask","id":"1"}')).toBeUndefined();
    expect(parseHostMessage('not json')).toBeUndefined();
    expect(parseHostMessage('[1]')).toBeUndefined();
  });

  it('never throws on damaged lines', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc
            .record({
              type: fc.constantFrom('hello', 'progress', 'log', 'result', 'x'),
              id: fc.jsonValue(),
            })
            .map((value) => JSON.stringify(value)),
        ),
        (line) => {
          const message = parseHostMessage(line);
          if (message !== undefined)
            expect(['hello', 'progress', 'log', 'result']).toContain(message.type);
        },
      ),
      { numRuns: fuzzRuns(5_000) },
    );
  });

  it('never throws turning any host result into a tool result', () => {
    fc.assert(
      fc.property(
        fc.record({
          kind: fc.constantFrom('none', 'text', 'json', 'error'),
          text: fc.option(fc.string()),
          json: fc.option(fc.oneof(fc.json(), fc.string())),
          error: fc.option(fc.string()),
          file: fc.option(fc.string()),
          line: fc.integer(),
          truncated: fc.boolean(),
          errorCount: fc.nat(5),
        }),
        fc.array(fc.string(), { maxLength: 3 }),
        (fields, errors) => {
          const result = createResultFromHost({
            toolName: 't',
            message: { type: 'result', id: '1', stopped: false, ...fields },
            errors,
            warnings: [],
            maxOutputBytes: 64,
          });
          expect(Array.isArray(result.content)).toBe(true);
          if (fields.kind === 'error') expect(result.isError).toBe(true);
        },
      ),
      { numRuns: fuzzRuns(3_000) },
    );
  });
});
