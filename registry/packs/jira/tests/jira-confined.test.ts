import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkPackFolder,
  describeSandbox,
  openPackSession,
  readStructured,
  readText,
} from '../../../../apps/registry/src/testing/pack-test-kit.ts';

const packDir = path.resolve(import.meta.dirname, '..');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-jira-confined-'));
const sandbox = describeSandbox();
let server: Server;
let env: Record<string, string>;
let requests: { url: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  // A loopback stand-in for Jira Cloud: the one issue the calls ask for.
  server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: '10001',
        key: 'PROJ-1',
        fields: { summary: 'Fix the login page', status: { name: 'To Do' }, labels: [] },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  env = {
    JIRA_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    JIRA_EMAIL: 'ada@example.com',
    JIRA_API_TOKEN: 'secret-token',
  };
});
beforeEach(() => {
  requests = [];
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(temp, { recursive: true, force: true });
});

describe('the jira pack', () => {
  it('declares network access (to Atlassian) and the three variables of its env:', async () => {
    const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked'));
    expect(checked.manifest.permissions).toEqual({
      filesystem: { read: [], write: [] },
      network: { access: 'any', hosts: ['*.atlassian.net'] },
      env: ['JIRA_API_TOKEN', 'JIRA_BASE_URL', 'JIRA_EMAIL'],
      subprocess: false,
    });
  });

  describe.skipIf(!sandbox.available)(
    `confined to what it declares, as an installed pack runs [the OS sandbox: ${sandbox.reason}]`,
    () => {
      it('reads an issue from the stub, with the token its env: grants', async () => {
        const session = await openPackSession({
          dir: packDir,
          projectRoot: temp,
          env,
          confine: {},
        });
        try {
          const issue = readStructured(await session.call('get_issue', { key: 'PROJ-1' }));
          expect(issue).toMatchObject({ key: 'PROJ-1', summary: 'Fix the login page' });
          expect(requests).toEqual([
            {
              url: expect.stringMatching(/^\/rest\/api\/3\/issue\/PROJ-1\?/),
              authorization: `Basic ${Buffer.from('ada@example.com:secret-token').toString('base64')}`,
            },
          ]);
        } finally {
          await session.close();
        }
      });

      it('reaches nothing when network is withheld: the same stub, the same call', async () => {
        const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked-offline'));
        const offline = {
          ...checked.manifest.permissions,
          network: { access: 'none' as const, hosts: [] },
        };
        const session = await openPackSession({
          dir: packDir,
          projectRoot: temp,
          env,
          confine: { permissions: offline },
        });
        try {
          const result = await session.call('get_issue', { key: 'PROJ-1' });
          expect(result.isError).toBe(true);
          expect(readText(result)).toContain('ECONNREFUSED');
          expect(requests).toEqual([]);
        } finally {
          await session.close();
        }
      });
    },
  );
});
