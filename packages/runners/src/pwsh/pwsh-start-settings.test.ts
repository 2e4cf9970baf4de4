// .NET settings the PowerShell host starts with (pwsh-host.ts, HOST_START_SETTINGS): the
// host's runtime reads them, the tools never see them, and a setting the environment makes
// itself is the environment's, for the host and the tools alike.
import { fileURLToPath } from 'node:url';
import { pwshEngine, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { createToolRunner } from '../index.ts';
import { makeTool } from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const gcStartTool = makeTool({
  name: 'get_gc_start',
  invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Get-GcStart.ps1' },
});

interface Seen {
  Setting: string | null;
  Note: string | null;
  Gen0Budget: number;
}

async function callWith(env: Record<string, string> | undefined): Promise<Seen> {
  const runner = createToolRunner({ projectRoot: fixtures, ...(env === undefined ? {} : { env }) });
  try {
    const result = await runner.call(gcStartTool, {});
    expect(result.isError ?? false).toBe(false);
    return result.structuredContent as unknown as Seen;
  } finally {
    await runner.close();
  }
}

describe('PowerShell host: .NET settings for its start', () => {
  // [GC]::GetConfigurationVariables() is .NET 7+ (PowerShell 7.3+): the full pwsh CI installs.
  it.skipIf(pwshEngine?.kind !== 'full')(
    `${PWSH_TEST_TAG} starts the host with a 64 MB gen0 budget that no tool sees in its environment`,
    async () => {
      const seen = await callWith(undefined);
      expect(seen.Gen0Budget).toBe(0x4000000);
      expect(seen.Setting).toBeNull();
      expect(seen.Note).toBeNull();
    },
    60_000,
  );

  it.skipIf(pwshEngine?.kind !== 'full')(
    `${PWSH_TEST_TAG} leaves a gen0 setting of the environment's own to the host and the tools`,
    async () => {
      const seen = await callWith({ DOTNET_GCgen0size: '0x2000000' });
      expect(seen.Gen0Budget).toBe(0x2000000);
      expect(seen.Setting).toBe('0x2000000');
      expect(seen.Note).toBeNull();
    },
    60_000,
  );
});
