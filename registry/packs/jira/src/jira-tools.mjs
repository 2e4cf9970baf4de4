// The jira pack's tools: Jira Cloud REST API v3 over fetch, configured by JIRA_BASE_URL,
// JIRA_EMAIL and JIRA_API_TOKEN. Self-contained (no imports outside Node) so an installed
// pack needs no node_modules; tools are branded with the symbol @toolpack/core's defineTool
// uses, and named without the pack (served as jira_<tool>, or <alias>_<tool>).

const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');
const REQUEST_TIMEOUT_MS = 20_000;
const ISSUE_KEY = /^([A-Za-z][A-Za-z0-9_]*-\d+|\d+)$/;
const SUMMARY_FIELDS = [
  'summary',
  'status',
  'assignee',
  'reporter',
  'priority',
  'issuetype',
  'created',
  'updated',
  'labels',
];

function tool(spec) {
  return Object.freeze({ [TOOL_BRAND]: true, ...spec });
}

const issueKey = {
  type: 'string',
  description: 'The issue key, e.g. "PROJ-123" (or its numeric id).',
  pattern: ISSUE_KEY.source,
  maxLength: 64,
};

export const searchIssues = tool({
  name: 'search_issues',
  title: 'Search Jira issues',
  description:
    'Finds Jira issues with a JQL query and returns key, summary, status, assignee, priority, type, dates and link of each. Page with next_page_token.',
  inputSchema: {
    type: 'object',
    properties: {
      jql: {
        type: 'string',
        description:
          'The JQL query, e.g. "project = PROJ AND status != Done ORDER BY updated DESC".',
        minLength: 1,
        maxLength: 4000,
      },
      max_results: {
        type: 'integer',
        description: 'How many issues to return.',
        minimum: 1,
        maximum: 100,
        default: 20,
      },
      next_page_token: {
        type: 'string',
        description: 'The token a previous search returned, for the next page.',
      },
    },
    required: ['jql'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  run: async (args, context) => {
    const body = { jql: args.jql, maxResults: args.max_results ?? 20, fields: SUMMARY_FIELDS };
    if (args.next_page_token) body.nextPageToken = args.next_page_token;
    const result = await jiraRequest('POST', '/rest/api/3/search/jql', {
      body,
      signal: context?.signal,
    });
    const issues = (result.issues ?? []).map((issue) => summarizeIssue(issue));
    return {
      issues,
      ...(result.nextPageToken ? { next_page_token: result.nextPageToken } : {}),
      is_last: result.isLast ?? !result.nextPageToken,
    };
  },
});

export const getIssue = tool({
  name: 'get_issue',
  title: 'Get a Jira issue',
  description:
    'Reads one Jira issue: summary, description as plain text, status, people, priority, labels, dates, link and its latest comments.',
  inputSchema: {
    type: 'object',
    properties: {
      key: issueKey,
      comments: {
        type: 'integer',
        description: 'How many of the latest comments to include.',
        minimum: 0,
        maximum: 50,
        default: 5,
      },
    },
    required: ['key'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  run: async (args, context) => {
    const key = checkKey(args.key);
    const issue = await jiraRequest('GET', `/rest/api/3/issue/${encodeURIComponent(key)}`, {
      query: { fields: [...SUMMARY_FIELDS, 'description', 'comment'].join(',') },
      signal: context?.signal,
    });
    const wanted = args.comments ?? 5;
    const all = issue.fields?.comment?.comments ?? [];
    const comments = wanted === 0 ? [] : all.slice(-wanted);
    return {
      ...summarizeIssue(issue),
      description: adfToText(issue.fields?.description),
      comments: comments.map((comment) => ({
        id: comment.id,
        author: comment.author?.displayName ?? null,
        created: comment.created ?? null,
        body: adfToText(comment.body),
      })),
    };
  },
});

export const createIssue = tool({
  name: 'create_issue',
  title: 'Create a Jira issue',
  description: 'Creates a Jira issue in a project and returns its key and link.',
  inputSchema: {
    type: 'object',
    properties: {
      project: {
        type: 'string',
        description: 'The project key, e.g. "PROJ".',
        pattern: '^[A-Za-z][A-Za-z0-9_]*$',
        maxLength: 32,
      },
      summary: { type: 'string', description: 'A one-line title.', minLength: 1, maxLength: 255 },
      description: {
        type: 'string',
        description: 'The body, plain text; blank lines separate paragraphs.',
        maxLength: 30000,
      },
      issue_type: {
        type: 'string',
        description: 'The issue type name, e.g. "Task", "Bug" or "Story".',
        default: 'Task',
        maxLength: 64,
      },
      labels: {
        type: 'array',
        description: 'Labels to set (no spaces).',
        items: { type: 'string', pattern: '^\\S+$', maxLength: 255 },
        maxItems: 20,
      },
      priority: { type: 'string', description: 'The priority name, e.g. "High".', maxLength: 64 },
    },
    required: ['project', 'summary'],
    additionalProperties: false,
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: async (args, context) => {
    const fields = {
      project: { key: args.project },
      summary: args.summary,
      issuetype: { name: args.issue_type ?? 'Task' },
    };
    if (args.description) fields.description = textToAdf(args.description);
    if (args.labels?.length) fields.labels = args.labels;
    if (args.priority) fields.priority = { name: args.priority };
    const created = await jiraRequest('POST', '/rest/api/3/issue', {
      body: { fields },
      signal: context?.signal,
    });
    return { key: created.key, id: created.id, url: browseUrl(created.key) };
  },
});

export const addComment = tool({
  name: 'add_comment',
  title: 'Comment on a Jira issue',
  description: 'Adds a comment to a Jira issue and returns its id.',
  inputSchema: {
    type: 'object',
    properties: {
      key: issueKey,
      body: {
        type: 'string',
        description: 'The comment, plain text; blank lines separate paragraphs.',
        minLength: 1,
        maxLength: 30000,
      },
    },
    required: ['key', 'body'],
    additionalProperties: false,
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  run: async (args, context) => {
    const key = checkKey(args.key);
    const comment = await jiraRequest(
      'POST',
      `/rest/api/3/issue/${encodeURIComponent(key)}/comment`,
      {
        body: { body: textToAdf(args.body) },
        signal: context?.signal,
      },
    );
    return { key, comment_id: comment.id, created: comment.created ?? null, url: browseUrl(key) };
  },
});

export const transitionIssue = tool({
  name: 'transition_issue',
  title: 'Move a Jira issue to another status',
  description:
    'Moves a Jira issue through its workflow by transition or target status name (e.g. "In Progress", "Done"). Without a name, lists the transitions available.',
  inputSchema: {
    type: 'object',
    properties: {
      key: issueKey,
      transition: {
        type: 'string',
        description:
          'The transition name, its target status name, or its id. Omit to list the choices.',
        maxLength: 128,
      },
      comment: {
        type: 'string',
        description: 'A comment to add with the transition.',
        maxLength: 30000,
      },
    },
    required: ['key'],
    additionalProperties: false,
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  run: async (args, context) => {
    const key = checkKey(args.key);
    const path = `/rest/api/3/issue/${encodeURIComponent(key)}/transitions`;
    const { transitions = [] } = await jiraRequest('GET', path, { signal: context?.signal });
    const choices = transitions.map((t) => ({ id: t.id, name: t.name, to: t.to?.name ?? null }));
    if (!args.transition) return { key, transitions: choices };
    const wanted = args.transition.trim().toLowerCase();
    const match =
      transitions.find((t) => t.id === args.transition.trim()) ??
      transitions.find((t) => t.name?.toLowerCase() === wanted) ??
      transitions.find((t) => t.to?.name?.toLowerCase() === wanted);
    if (!match) {
      throw new Error(
        `${key} has no transition "${args.transition}". Available: ${choices.map((c) => `"${c.name}" (to ${c.to})`).join(', ') || 'none'}.`,
      );
    }
    const body = { transition: { id: match.id } };
    if (args.comment) body.update = { comment: [{ add: { body: textToAdf(args.comment) } }] };
    await jiraRequest('POST', path, { body, signal: context?.signal });
    return { key, transition: match.name, status: match.to?.name ?? null, url: browseUrl(key) };
  },
});

/** Reads the configuration on every call, so a server picks up a fixed variable without a restart. */
export function readJiraConfig(env = process.env) {
  const missing = ['JIRA_BASE_URL', 'JIRA_EMAIL', 'JIRA_API_TOKEN'].filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set. Set JIRA_BASE_URL (e.g. https://acme.atlassian.net), JIRA_EMAIL and JIRA_API_TOKEN (https://id.atlassian.com/manage-profile/security/api-tokens) in the server's environment.`,
    );
  }
  let base;
  try {
    base = new URL(env.JIRA_BASE_URL);
  } catch {
    throw new Error(
      `JIRA_BASE_URL "${env.JIRA_BASE_URL}" is not a URL; use e.g. https://acme.atlassian.net`,
    );
  }
  const local =
    base.hostname === 'localhost' || base.hostname === '127.0.0.1' || base.hostname === '[::1]';
  if (base.protocol !== 'https:' && !(base.protocol === 'http:' && local)) {
    throw new Error(
      `JIRA_BASE_URL must use https (the API token would travel in clear): ${base.origin}`,
    );
  }
  return {
    base: base.href.replace(/\/+$/, ''),
    authorization: `Basic ${Buffer.from(`${env.JIRA_EMAIL}:${env.JIRA_API_TOKEN}`).toString('base64')}`,
  };
}

async function jiraRequest(method, path, { body, query, signal } = {}) {
  const config = readJiraConfig();
  const url = new URL(`${config.base}${path}`);
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: config.authorization,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (timeout.aborted)
      throw new Error(
        `Jira did not answer ${method} ${path} within ${REQUEST_TIMEOUT_MS / 1000} s.`,
      );
    throw new Error(describeUnreachable(config.base, error));
  }
  const text = await response.text();
  if (!response.ok) throw new Error(describeJiraError(response.status, method, path, text));
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(
      `Jira answered ${method} ${path} with something other than JSON (is JIRA_BASE_URL the site's root?).`,
    );
  }
}

/** What to do about each way a connection fails; the rest gets the generic advice. */
const UNREACHABLE_HINTS = {
  ECONNREFUSED:
    'nothing accepts connections there. Check JIRA_BASE_URL (your site, e.g. https://acme.atlassian.net) and that any proxy or tunnel it names is running.',
  ENOTFOUND:
    "the host name does not resolve. Check JIRA_BASE_URL's spelling and this machine's DNS.",
  EAI_AGAIN: "the host name could not be resolved right now. Check this machine's DNS, then retry.",
  ECONNRESET:
    'the connection was cut. A proxy or firewall may be refusing it; retry, or check the network.',
};
const GENERIC_UNREACHABLE_HINT =
  'Check JIRA_BASE_URL (your site, e.g. https://acme.atlassian.net) and that this machine can reach it.';

/**
 * fetch only says "fetch failed"; the reason is in its cause (an AggregateError when every
 * address of the host was tried), and the user needs it to know what to fix.
 */
function describeUnreachable(base, error) {
  const cause = error.cause;
  const attempts = Array.isArray(cause?.errors) ? cause.errors : cause ? [cause] : [];
  const reasons = attempts.map((attempt) => {
    if (typeof attempt?.code !== 'string') return String(attempt?.message ?? attempt);
    if (attempt.address !== undefined && attempt.port !== undefined)
      return `${attempt.code} ${attempt.address.includes(':') ? `[${attempt.address}]` : attempt.address}:${attempt.port}`;
    return attempt.hostname === undefined ? attempt.code : `${attempt.code} ${attempt.hostname}`;
  });
  const reason = [...new Set(reasons)].join(', ') || error.message;
  const code = attempts.find((attempt) => typeof attempt?.code === 'string')?.code ?? cause?.code;
  const hint = UNREACHABLE_HINTS[code];
  return hint === undefined
    ? `Cannot reach Jira at ${base} (${reason}). ${GENERIC_UNREACHABLE_HINT}`
    : `Cannot reach Jira at ${base} (${reason}): ${hint}`;
}

function describeJiraError(status, method, path, text) {
  let details = '';
  try {
    const body = JSON.parse(text);
    details = [
      ...(body.errorMessages ?? []),
      ...Object.entries(body.errors ?? {}).map(([field, message]) => `${field}: ${message}`),
    ].join('; ');
  } catch {
    details = text.slice(0, 200);
  }
  const advice = {
    400: 'Check the arguments (JQL syntax, field values).',
    401: 'JIRA_EMAIL or JIRA_API_TOKEN is wrong or expired.',
    403: 'The account may not do this in that project.',
    404: 'No such issue or project, or the account cannot see it.',
    429: 'Jira is rate-limiting; try again in a minute.',
  }[status];
  return `Jira answered ${status} to ${method} ${path}${details ? `: ${details}` : ''}.${advice ? ` ${advice}` : ''}`;
}

function checkKey(key) {
  const trimmed = String(key ?? '').trim();
  if (!ISSUE_KEY.test(trimmed)) throw new Error(`"${key}" is not an issue key such as PROJ-123.`);
  return trimmed.toUpperCase();
}

function browseUrl(key) {
  try {
    return `${readJiraConfig().base}/browse/${encodeURIComponent(key)}`;
  } catch {
    return null;
  }
}

function summarizeIssue(issue) {
  const fields = issue.fields ?? {};
  return {
    key: issue.key,
    summary: fields.summary ?? '',
    status: fields.status?.name ?? null,
    type: fields.issuetype?.name ?? null,
    priority: fields.priority?.name ?? null,
    assignee: fields.assignee?.displayName ?? null,
    reporter: fields.reporter?.displayName ?? null,
    labels: fields.labels ?? [],
    created: fields.created ?? null,
    updated: fields.updated ?? null,
    url: browseUrl(issue.key),
  };
}

/** Plain text to Atlassian Document Format: one paragraph per blank-line-separated block. */
export function textToAdf(text) {
  const paragraphs = String(text)
    .replace(/\r\n/g, '\n')
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '');
  return {
    type: 'doc',
    version: 1,
    content: paragraphs.map((paragraph) => ({
      type: 'paragraph',
      content: paragraph
        .split('\n')
        .flatMap((line, i) => [
          ...(i > 0 ? [{ type: 'hardBreak' }] : []),
          ...(line === '' ? [] : [{ type: 'text', text: line }]),
        ]),
    })),
  };
}

/** Atlassian Document Format to plain text (what a model reads best). */
export function adfToText(node) {
  if (node === null || node === undefined) return '';
  if (typeof node === 'string') return node;
  if (node.type === 'text') return node.text ?? '';
  if (node.type === 'hardBreak') return '\n';
  if (node.type === 'mention') return node.attrs?.text ?? '';
  if (node.type === 'emoji') return node.attrs?.text ?? node.attrs?.shortName ?? '';
  if (node.type === 'inlineCard') return node.attrs?.url ?? '';
  const inner = (node.content ?? []).map((child) => adfToText(child));
  if (node.type === 'listItem') return `- ${inner.join('').trim()}\n`;
  const blocks = new Set(['doc', 'bulletList', 'orderedList', 'table', 'tableRow']);
  if (blocks.has(node.type))
    return inner
      .join(node.type === 'doc' ? '\n\n' : '')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  return inner.join('');
}
