import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JS module (the pack ships no build step and no types).
import * as jira from '../src/jira-tools.mjs';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

type Tool = {
  name: string;
  run(
    args: Record<string, unknown>,
    context: { signal: AbortSignal },
  ): Promise<Record<string, unknown>>;
};
const tools = jira as unknown as Record<string, Tool> & {
  textToAdf(text: string): unknown;
  adfToText(node: unknown): string;
};
const context = { signal: new AbortController().signal };

let server: Server;
let seen: Seen[] = [];
let reply: (request: Seen) => { status: number; body?: unknown } = () => ({
  status: 200,
  body: {},
});
const saved = { ...process.env };

beforeAll(async () => {
  server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const entry = {
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      body: text === '' ? undefined : JSON.parse(text),
    };
    seen.push(entry);
    const { status, body } = reply(entry);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body === undefined ? '' : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.JIRA_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  process.env.JIRA_EMAIL = 'ada@example.com';
  process.env.JIRA_API_TOKEN = 'secret-token';
});
afterAll(async () => {
  process.env = saved;
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  seen = [];
});

const issue = {
  id: '10001',
  key: 'PROJ-1',
  fields: {
    summary: 'Fix the login page',
    status: { name: 'To Do' },
    issuetype: { name: 'Bug' },
    priority: { name: 'High' },
    assignee: { displayName: 'Ada' },
    labels: ['web'],
    created: '2026-01-01T10:00:00.000+0000',
    updated: '2026-01-02T10:00:00.000+0000',
    description: {
      type: 'doc',
      version: 1,
      content: [{ type: 'paragraph', content: [{ type: 'text', text: 'It fails.' }] }],
    },
    comment: {
      comments: [1, 2, 3].map((n) => ({
        id: String(n),
        author: { displayName: 'Bob' },
        body: tools.textToAdf(`comment ${n}`),
      })),
    },
  },
};

describe('the jira pack tools', () => {
  it('exports the five tools, branded for discovery', () => {
    const names = Object.values(tools)
      .filter(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          (value as Record<symbol, unknown>)[Symbol.for('@toolpack/core/defined-tool')] === true,
      )
      .map((tool) => (tool as Tool).name)
      .sort();
    expect(names).toEqual([
      'add_comment',
      'create_issue',
      'get_issue',
      'search_issues',
      'transition_issue',
    ]);
  });

  it('search_issues posts the JQL with basic auth and summarizes each issue', async () => {
    reply = () => ({
      status: 200,
      body: { issues: [issue], nextPageToken: 'next', isLast: false },
    });
    const result = await tools.searchIssues!.run(
      { jql: 'project = PROJ', max_results: 5 },
      context,
    );
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/rest/api/3/search/jql',
      authorization: `Basic ${Buffer.from('ada@example.com:secret-token').toString('base64')}`,
      body: { jql: 'project = PROJ', maxResults: 5 },
    });
    expect(result).toMatchObject({ next_page_token: 'next', is_last: false });
    expect((result.issues as unknown[])[0]).toMatchObject({
      key: 'PROJ-1',
      summary: 'Fix the login page',
      status: 'To Do',
      assignee: 'Ada',
      url: expect.stringMatching(/\/browse\/PROJ-1$/),
    });
  });

  it('get_issue reads the description and the latest comments as text', async () => {
    reply = () => ({ status: 200, body: issue });
    const result = await tools.getIssue!.run({ key: 'proj-1', comments: 2 }, context);
    expect(seen[0]?.url).toMatch(/^\/rest\/api\/3\/issue\/PROJ-1\?fields=/);
    expect(result).toMatchObject({
      description: 'It fails.',
      comments: [
        { id: '2', body: 'comment 2' },
        { id: '3', body: 'comment 3' },
      ],
    });
  });

  it('create_issue sends the fields with the description as ADF', async () => {
    reply = () => ({ status: 201, body: { id: '10002', key: 'PROJ-2' } });
    const result = await tools.createIssue!.run(
      { project: 'PROJ', summary: 'New', description: 'One\n\nTwo', labels: ['a'] },
      context,
    );
    expect(seen[0]?.body).toEqual({
      fields: {
        project: { key: 'PROJ' },
        summary: 'New',
        issuetype: { name: 'Task' },
        labels: ['a'],
        description: {
          type: 'doc',
          version: 1,
          content: [
            { type: 'paragraph', content: [{ type: 'text', text: 'One' }] },
            { type: 'paragraph', content: [{ type: 'text', text: 'Two' }] },
          ],
        },
      },
    });
    expect(result).toMatchObject({ key: 'PROJ-2', id: '10002' });
  });

  it('add_comment posts the body as ADF', async () => {
    reply = () => ({ status: 201, body: { id: '99', created: 'now' } });
    expect(
      await tools.addComment!.run({ key: 'PROJ-1', body: 'Looks good' }, context),
    ).toMatchObject({ key: 'PROJ-1', comment_id: '99' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/rest/api/3/issue/PROJ-1/comment' });
  });

  it('transition_issue finds the transition by name or target status, or lists them', async () => {
    const transitions = {
      transitions: [
        { id: '11', name: 'Start work', to: { name: 'In Progress' } },
        { id: '31', name: 'Finish', to: { name: 'Done' } },
      ],
    };
    reply = (request) =>
      request.method === 'GET' ? { status: 200, body: transitions } : { status: 204 };
    expect(await tools.transitionIssue!.run({ key: 'PROJ-1' }, context)).toEqual({
      key: 'PROJ-1',
      transitions: [
        { id: '11', name: 'Start work', to: 'In Progress' },
        { id: '31', name: 'Finish', to: 'Done' },
      ],
    });
    expect(
      await tools.transitionIssue!.run({ key: 'PROJ-1', transition: 'done' }, context),
    ).toMatchObject({ transition: 'Finish', status: 'Done' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: { transition: { id: '31' } } });
    await expect(
      tools.transitionIssue!.run({ key: 'PROJ-1', transition: 'Reopen' }, context),
    ).rejects.toThrow(/has no transition "Reopen". Available: "Start work" \(to In Progress\)/);
  });

  it('turns Jira errors into messages a model can act on', async () => {
    reply = () => ({
      status: 400,
      body: { errorMessages: ["Field 'projct' does not exist."], errors: {} },
    });
    await expect(tools.searchIssues!.run({ jql: 'projct = X' }, context)).rejects.toThrow(
      "Jira answered 400 to POST /rest/api/3/search/jql: Field 'projct' does not exist.. Check the arguments (JQL syntax, field values).",
    );
    reply = () => ({ status: 401 });
    await expect(tools.getIssue!.run({ key: 'PROJ-1' }, context)).rejects.toThrow(
      /401 .*JIRA_EMAIL or JIRA_API_TOKEN is wrong/,
    );
    await expect(tools.getIssue!.run({ key: '../../admin' }, context)).rejects.toThrow(
      /not an issue key/,
    );
  });

  it('says which variables are missing, and refuses plain http to a remote site', async () => {
    const { JIRA_API_TOKEN: token } = process.env;
    delete process.env.JIRA_API_TOKEN;
    await expect(tools.getIssue!.run({ key: 'PROJ-1' }, context)).rejects.toThrow(
      /^JIRA_API_TOKEN is not set/,
    );
    process.env.JIRA_API_TOKEN = token;
    const base = process.env.JIRA_BASE_URL;
    process.env.JIRA_BASE_URL = 'http://jira.example.com';
    await expect(tools.getIssue!.run({ key: 'PROJ-1' }, context)).rejects.toThrow(/must use https/);
    process.env.JIRA_BASE_URL = base;
  });

  it('names the refused address and what to check when nothing listens at JIRA_BASE_URL', async () => {
    // A port that was just free on loopback: bound, then closed, so connecting is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const base = process.env.JIRA_BASE_URL;
    process.env.JIRA_BASE_URL = `http://127.0.0.1:${port}`;
    try {
      const error = await tools.getIssue!.run({ key: 'PROJ-1' }, context).catch((e: unknown) => e);
      // The request really was refused (the cause fetch hides), not stopped before it left.
      expect((error as Error).message).toBe(
        `Cannot reach Jira at http://127.0.0.1:${port} (ECONNREFUSED 127.0.0.1:${port}): nothing accepts connections there. Check JIRA_BASE_URL (your site, e.g. https://acme.atlassian.net) and that any proxy or tunnel it names is running.`,
      );
      expect(seen).toEqual([]);
    } finally {
      process.env.JIRA_BASE_URL = base;
    }
  });
});
