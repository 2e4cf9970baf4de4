// A client of the generic MCP Registry API (v0.1), written from the API's documentation only
// (modelcontextprotocol/registry docs/reference/api/openapi.yaml and the REST usage guide): its
// own types, its own checks of every answer, and none of Toolpack's code. A registry that
// speaks the documented API is what the aggregators and editors that read it expect.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';

/** `ServerResponse`: a server.json and the registry's metadata about it. */
export interface ServerResponse {
  server: ServerDetail;
  _meta?: {
    'io.modelcontextprotocol.registry/official'?: {
      status?: 'active' | 'deprecated' | 'deleted';
      publishedAt?: string;
      updatedAt?: string;
      isLatest?: boolean;
    };
    [key: string]: unknown;
  };
}

/** The parts of `ServerDetail` this client reads; the schema checks the rest. */
export interface ServerDetail {
  name: string;
  description: string;
  version: string;
  packages?: {
    registryType: string;
    identifier: string;
    version?: string;
    runtimeHint?: string;
    transport: { type: string };
    packageArguments?: { type: string; name?: string; value?: string }[];
    environmentVariables?: { name: string; isRequired?: boolean; isSecret?: boolean }[];
  }[];
  _meta?: Record<string, unknown>;
}

/** `ServerList`. */
export interface ServerList {
  servers: ServerResponse[];
  metadata?: { nextCursor?: string; count?: number };
}

export interface ListQuery {
  search?: string;
  updatedSince?: string;
  version?: string;
  limit?: number;
}

/** The documented envelope shapes, as JSON Schema, so a wrong answer fails loudly here. */
const officialMeta = {
  type: 'object',
  properties: {
    status: { enum: ['active', 'deprecated', 'deleted'] },
    publishedAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    isLatest: { type: 'boolean' },
  },
  additionalProperties: false,
};
const serverResponseSchema = {
  type: 'object',
  required: ['server'],
  properties: {
    server: { type: 'object' },
    _meta: {
      type: 'object',
      properties: { 'io.modelcontextprotocol.registry/official': officialMeta },
    },
  },
};
const serverListSchema = {
  type: 'object',
  required: ['servers'],
  properties: {
    servers: { type: 'array', items: serverResponseSchema },
    metadata: {
      type: 'object',
      properties: { nextCursor: { type: 'string' }, count: { type: 'integer' } },
    },
  },
};

export interface OfficialRegistryClient {
  /** Every server entry, following `nextCursor` until the end (at most `maxPages` pages). */
  listAll(
    query?: ListQuery,
    maxPages?: number,
  ): Promise<{ servers: ServerResponse[]; pages: number }>;
  listPage(query: ListQuery & { cursor?: string }): Promise<ServerList>;
  listVersions(serverName: string): Promise<ServerList>;
  getVersion(serverName: string, version: string): Promise<ServerResponse>;
  /** The status and body of any GET, unchecked (for error answers). */
  raw(
    route: string,
    init?: RequestInit,
  ): Promise<{ status: number; headers: Headers; body: unknown }>;
}

/**
 * `schemaFile` is the published server.json schema (draft-07): every `server` in every answer
 * must validate against it.
 */
export function createOfficialRegistryClient(
  baseUrl: string,
  schemaFile: string,
): OfficialRegistryClient {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat('uri', (text: string) => /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text));
  ajv.addFormat('uri-template', true);
  ajv.addFormat(
    'date-time',
    (text: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text) &&
      !Number.isNaN(Date.parse(text)),
  );
  const serverSchema = ajv.compile(
    JSON.parse(readFileSync(path.resolve(schemaFile), 'utf8')) as object,
  );
  const listSchema = ajv.compile(serverListSchema);
  const responseSchema = ajv.compile(serverResponseSchema);
  const base = baseUrl.replace(/\/+$/, '');

  const check = (validate: ValidateFunction, value: unknown, what: string): void => {
    if (!validate(value))
      throw new Error(
        `${what} does not match the documented shape: ${ajv.errorsText(validate.errors)}`,
      );
  };
  const checkServer = (entry: ServerResponse, what: string): void =>
    check(
      serverSchema,
      entry.server,
      `${what}: server ${entry.server.name}@${entry.server.version}`,
    );

  const getJson = async (route: string): Promise<unknown> => {
    const response = await fetch(`${base}${route}`, { headers: { accept: 'application/json' } });
    if (response.status !== 200)
      throw new Error(`GET ${route} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  const encodeName = (serverName: string) => encodeURIComponent(serverName);

  const listPage: OfficialRegistryClient['listPage'] = async (query) => {
    const params = new URLSearchParams();
    if (query.cursor !== undefined) params.set('cursor', query.cursor);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.search !== undefined) params.set('search', query.search);
    if (query.updatedSince !== undefined) params.set('updated_since', query.updatedSince);
    if (query.version !== undefined) params.set('version', query.version);
    const route = `/v0.1/servers${params.size === 0 ? '' : `?${params}`}`;
    const body = await getJson(route);
    check(listSchema, body, `GET ${route}`);
    const list = body as ServerList;
    for (const entry of list.servers) checkServer(entry, `GET ${route}`);
    return list;
  };

  return {
    listPage,
    async listAll(query = {}, maxPages = 100) {
      const servers: ServerResponse[] = [];
      let cursor: string | undefined;
      for (let pages = 1; pages <= maxPages; pages += 1) {
        const page = await listPage({ ...query, ...(cursor === undefined ? {} : { cursor }) });
        servers.push(...page.servers);
        cursor = page.metadata?.nextCursor;
        if (cursor === undefined || cursor === '') return { servers, pages };
      }
      throw new Error(`still paging after ${maxPages} pages`);
    },
    async listVersions(serverName) {
      const route = `/v0.1/servers/${encodeName(serverName)}/versions`;
      const body = await getJson(route);
      check(listSchema, body, `GET ${route}`);
      const list = body as ServerList;
      for (const entry of list.servers) checkServer(entry, `GET ${route}`);
      return list;
    },
    async getVersion(serverName, version) {
      const route = `/v0.1/servers/${encodeName(serverName)}/versions/${encodeURIComponent(version)}`;
      const body = await getJson(route);
      check(responseSchema, body, `GET ${route}`);
      checkServer(body as ServerResponse, `GET ${route}`);
      return body as ServerResponse;
    },
    async raw(route, init) {
      const response = await fetch(`${base}${route}`, init);
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON (a preflight has no body): the text is the answer.
      }
      return { status: response.status, headers: response.headers, body };
    },
  };
}
