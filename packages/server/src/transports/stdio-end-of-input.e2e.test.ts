import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../testing/index.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

describe('mcp serve over stdio at the end of input', () => {
  let temp: string;
  let marker: string;

  beforeAll(() => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-stdio-eof-'));
    marker = path.join(temp, 'called.txt');
    // The tool leaves a mark, so the test knows the call really ran before the input ended.
    writeFileSync(
      path.join(temp, 'leave-mark.mjs'),
      [
        '// DESCRIPTION "Writes a mark file and answers."',
        '// PARAM word AS string DESCRIPTION "What to write."',
        "import { writeFileSync } from 'node:fs';",
        "let input = '';",
        'for await (const chunk of process.stdin) input += chunk;',
        'const { word } = JSON.parse(input);',
        `writeFileSync(${JSON.stringify(marker)}, word);`,
        'console.log(JSON.stringify({ wrote: word }));',
        '',
      ].join('\n'),
    );
  });

  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('answers a tools/call piped right before stdin ends, then exits', async () => {
    const server = spawnServe(['--script-root', temp, '--no-cache', '--no-watch'], { cwd: temp });
    try {
      // What `printf 'initialize\ninitialized\ntools/call\n' | mcp serve` sends: all at once, then EOF.
      server.child.stdin?.end(
        [
          INITIALIZE,
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          {
            jsonrpc: '2.0',
            id: 'call',
            method: 'tools/call',
            params: { name: 'leave_mark', arguments: { word: 'piped' } },
          },
        ]
          .map((message) => JSON.stringify(message))
          .join('\n') + '\n',
      );
      expect(await server.exited).toBe(0);
      const answers = server
        .stdout()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map(
          (line) => JSON.parse(line) as { id?: unknown; result?: { structuredContent?: unknown } },
        );
      expect(answers.map((answer) => answer.id)).toEqual([0, 'call']);
      expect(answers[1]?.result?.structuredContent).toEqual({ wrote: 'piped' });
      expect(existsSync(marker) ? readFileSync(marker, 'utf8') : 'the tool never ran').toBe(
        'piped',
      );
      expect(server.stderr()).toContain('stopping (end of stdin)');
    } finally {
      server.kill();
    }
  });
});
