import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverTools } from './discover-tools.ts';

const root = fileURLToPath(new URL('./fixtures/lenient-help/', import.meta.url));
const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function served(result: Awaited<ReturnType<typeof discoverTools>>): string[] {
  return result.tools.filter((tool) => tool.source.kind === 'script').map((tool) => tool.name);
}

function codes(result: Awaited<ReturnType<typeof discoverTools>>): string[] {
  return result.diagnostics
    .filter((d) => d.code.includes('DESCRIPTION'))
    .map((d) => `${d.severity} ${d.code} ${d.line}`);
}

describe('lenient help', () => {
  it('refuses undescribed parameters by default and serves them when asked, from one cache', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'toolpack-lenient-'));
    temporary.push(cache);
    const options = { sources: [{ scripts: root }], cwd: root, cache };
    const strict = await discoverTools(options);
    expect(served(strict)).toEqual(['Get_Described']);
    expect(codes(strict)).toEqual([
      'error E_PARAMETER_NO_DESCRIPTION 11',
      'error E_PARAMETER_NO_DESCRIPTION 13',
    ]);

    const lenient = await discoverTools({ ...options, lenientHelp: true });
    // Both files came from the cache the first run filled: the choice is made after it.
    expect(lenient.cache?.hits).toBe(2);
    expect(served(lenient)).toEqual(['Copy_Items', 'Get_Described']);
    expect(codes(lenient)).toEqual([
      'warning W_PARAMETER_NO_DESCRIPTION 11',
      'warning W_PARAMETER_NO_DESCRIPTION 13',
    ]);
    const copy = lenient.tools.find((tool) => tool.name === 'Copy_Items');
    expect(copy).not.toHaveProperty('parameterHelpGaps');
    expect(copy?.inputSchema.properties).toEqual({
      Source: { type: 'string', description: 'Where to copy from.' },
      Destination: { type: 'string' },
      Force: { type: 'boolean', default: false },
    });
    expect(copy?.inputSchema.required).toEqual(['Source']);
  });
});
