// How the PowerShell host's runspace pool starts: one runspace serves the first call alone (a
// second opening beside it would share a small machine's cores with the call the client is
// waiting for), and the pool's floor of two is there once the first has served.
import { fileURLToPath } from 'node:url';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { createToolRunner } from '../index.ts';
import { firstText, makeTool } from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const countOpen = makeTool({
  name: 'get_openrunspaces',
  invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Get-OpenRunspaces.ps1' },
});

describe('PowerShell host pool at start', () => {
  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} answers the first call from the one runspace opened at start, then opens the second`,
    async () => {
      const runner = createToolRunner({ projectRoot: fixtures, concurrency: { pwsh: 4 } });
      const openRunspaces = async () => Number(firstText(await runner.call(countOpen, {})));
      try {
        // The host's own runspace and the one running this call: nothing else was opened
        // (with two opened at start, the second is open by now and this says 3).
        expect(await openRunspaces()).toBe(2);
        // Once the first has served, the floor of two runspaces is kept ready.
        let open = 2;
        for (let attempt = 0; attempt < 100 && open < 3; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          open = await openRunspaces();
        }
        expect(open).toBe(3);
      } finally {
        await runner.close();
      }
    },
    60_000,
  );
});
