// BotServer's BASIC tools: PARAM name AS type LIKE example DESCRIPTION "..." and DESCRIPTION
// "..." compiled to MCP definitions with its compile-time checks, run by the interpreter the
// project configures for .bas.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copySeedFixture,
  listToolsByName,
  readStructured,
  readText,
  runMcp,
  startSeedServer,
  type ListedTool,
  type StdioSession,
} from './seed-helpers.ts';

let project: ReturnType<typeof copySeedFixture>;
beforeAll(() => {
  project = copySeedFixture('botserver');
});
afterAll(() => project?.remove());

describe('a bot of BASIC tools with an interpreter configured', () => {
  let session: StdioSession;
  let tools: Map<string, ListedTool>;

  beforeAll(async () => {
    // No flags: the sources and the .bas interpreter come from the project's toolpack.yaml.
    session = await startSeedServer([], { cwd: project.dir });
    tools = await listToolsByName(session);
  }, 60_000);
  afterAll(() => session?.close());

  it('compiles PARAM lines into typed, described, required properties with their LIKE example', () => {
    expect(tools.get('place_order')).toMatchObject({
      description: 'Takes an order for a client and confirms it',
      inputSchema: {
        type: 'object',
        properties: {
          client_name: {
            type: 'string',
            description: 'Who the order is for.',
            examples: ['Grace Hopper'],
          },
          total: {
            type: 'number',
            description: 'What the order costs in total.',
            examples: [42.5],
          },
          gift_wrap: {
            type: 'boolean',
            description: 'Whether to wrap the parcel as a gift.',
            examples: [true],
          },
        },
        required: ['client_name', 'total', 'gift_wrap'],
      },
    });
    expect(tools.get('find_product')?.inputSchema.required).toEqual(['product', 'at_least']);
  });

  it('runs a tool through the configured interpreter with the arguments on stdin', async () => {
    const result = await session.client.callTool({
      name: 'place_order',
      arguments: { client_name: 'Ada', total: 12.5, gift_wrap: false },
    });
    expect(readStructured(result)).toEqual({
      talk: ['Order for Ada comes to 12.5'],
      returned: 'accepted',
      script: 'place_order.bas',
    });
  });

  it('validates the arguments against the compiled schema before the script runs', async () => {
    const missing = await session.client.callTool({
      name: 'place_order',
      arguments: { client_name: 'Ada', total: 'twelve' },
    });
    expect(missing.isError).toBe(true);
    expect(readText(missing)).toMatch(/total|gift_wrap/);
  });
});

describe("BotServer's compile-time checks", () => {
  let session: StdioSession;
  let tools: Map<string, ListedTool>;

  beforeAll(async () => {
    session = await startSeedServer(['--script-root', 'bot', '--script-root', 'rejected'], {
      cwd: project.dir,
    });
    tools = await listToolsByName(session);
  }, 60_000);
  afterAll(() => session?.close());

  it('accepts the valid tools and refuses each invalid one with its reason', () => {
    expect(
      [...tools.keys()].filter((name) => !['find_tools', 'describe_tool'].includes(name)).sort(),
    ).toEqual(['find_product', 'place_order']);
    const stderr = session.stderr();
    expect(stderr).toMatch(
      /bad_name\.bas:1: error E_PARAM_NAME: PARAM name "2nd-try" is not a valid identifier/,
    );
    expect(stderr).toMatch(
      /bad_type\.bas:1: error E_PARAM_TYPE: PARAM when has the unknown type "moment"/,
    );
    expect(stderr).toMatch(/empty_param_description\.bas:1: error E_EMPTY_DESCRIPTION: PARAM note/);
    expect(stderr).toMatch(
      /empty_description\.bas:2: error E_EMPTY_DESCRIPTION: The DESCRIPTION is empty/,
    );
    expect(stderr).toMatch(
      /twice_the_same\.bas:2: error E_DUPLICATE_PARAM: PARAM code is declared twice/,
    );
  });
});

describe('unique tool names per bot', () => {
  it('warns and serves the last one by default', { timeout: 60_000 }, async () => {
    const session = await startSeedServer(['--script-root', 'bot', '--script-root', 'second-bot'], {
      cwd: project.dir,
    });
    try {
      const tools = await listToolsByName(session);
      expect(tools.get('place_order')?.description).toMatch(/^Another bot's tool/);
      expect(session.stderr()).toMatch(/warning W_COLLISION: Two tools are named place_order/);
    } finally {
      await session.close();
    }
  });

  it(
    'refuses to start on the duplicate with --strict (BotServer checks names at compile time)',
    { timeout: 60_000 },
    async () => {
      const refused = await runMcp(
        ['serve', '--no-cache', '--strict', '--script-root', 'bot', '--script-root', 'second-bot'],
        { cwd: project.dir },
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /error Refusing to start: Two tools are named place_order: .* \(--strict\), so neither is served\./,
      );
      expect(refused.stdout).toBe('');
    },
  );
});

describe('without an interpreter for .bas', () => {
  it(
    'lists the tools and answers a call with an error that says how to configure one',
    {
      timeout: 60_000,
    },
    async () => {
      const bare = copySeedFixture('botserver');
      rmSync(path.join(bare.dir, 'toolpack.yaml'));
      const session = await startSeedServer(['--script-root', 'bot'], { cwd: bare.dir });
      try {
        expect((await listToolsByName(session)).has('find_product')).toBe(true);
        const result = await session.client.callTool({
          name: 'find_product',
          arguments: { product: 'mug', at_least: 1 },
        });
        expect(result.isError).toBe(true);
        expect(readText(result)).toMatch(/No interpreter is configured for "\.bas"/);
      } finally {
        await session.close();
        bare.remove();
      }
    },
  );
});
