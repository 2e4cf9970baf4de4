/* global process, Buffer, URL, Headers, AbortSignal, fetch, performance, TextDecoder */
// The http pack's tools. Self-contained on purpose: an installed pack has no node_modules,
// so instead of importing defineTool from @toolpack/core it brands its tools with the same
// registry-wide symbol defineTool uses, which is all discovery and the worker look for.
const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;
const MAX_BYTES = 10 * 1024 * 1024;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
// Headers fetch computes itself or that would let a caller smuggle a second request.
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

function tool(spec) {
  return Object.freeze({ [TOOL_BRAND]: true, ...spec });
}

const urlProperty = {
  type: 'string',
  description: 'The http:// or https:// URL to request.',
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  maxLength: 8192,
  examples: ['https://example.com/api/items?limit=5'],
};
const headersProperty = {
  type: 'object',
  description: 'Request headers, name to value.',
  additionalProperties: { type: 'string', maxLength: 8192 },
  examples: [{ accept: 'application/json' }],
};
const timeoutProperty = {
  type: 'integer',
  description: 'Give up after this many milliseconds.',
  minimum: 1,
  maximum: MAX_TIMEOUT_MS,
  default: DEFAULT_TIMEOUT_MS,
};
const maxBytesProperty = {
  type: 'integer',
  description:
    'Read at most this many bytes of the response body; the rest is cut off and reported as truncated.',
  minimum: 1,
  maximum: MAX_BYTES,
  default: DEFAULT_MAX_BYTES,
};

export const httpGet = tool({
  name: 'http_get',
  title: 'HTTP GET',
  description:
    'Fetches a URL with GET and returns the status, headers and body (text, or base64 for binary content), with a timeout and a size cap.',
  inputSchema: {
    type: 'object',
    properties: {
      url: urlProperty,
      headers: headersProperty,
      timeout_ms: timeoutProperty,
      max_bytes: maxBytesProperty,
    },
    required: ['url'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  run: (args, context) => sendRequest({ ...args, method: 'GET' }, context),
});

export const httpRequest = tool({
  name: 'http_request',
  title: 'HTTP request',
  description:
    'Sends an HTTP request with any method, headers and body, and returns the status, headers and body (text, or base64 for binary content), with a timeout and a size cap.',
  inputSchema: {
    type: 'object',
    properties: {
      url: urlProperty,
      method: { type: 'string', description: 'The HTTP method.', enum: METHODS, default: 'GET' },
      headers: headersProperty,
      body: {
        type: 'string',
        description: 'The request body (text; JSON as a string). Not allowed with GET or HEAD.',
        maxLength: MAX_BYTES,
      },
      timeout_ms: timeoutProperty,
      max_bytes: maxBytesProperty,
    },
    required: ['url'],
    additionalProperties: false,
  },
  annotations: { destructiveHint: true, openWorldHint: true },
  run: (args, context) => sendRequest(args, context),
});

/** Exported for tests: the whole request, as both tools make it. */
export async function sendRequest(args, context = {}) {
  const method = (args.method ?? 'GET').toUpperCase();
  if (!METHODS.includes(method)) throw new Error(`method must be one of ${METHODS.join(', ')}.`);
  let url;
  try {
    url = new URL(args.url);
  } catch (error) {
    throw new Error(`${JSON.stringify(args.url)} is not a URL.`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`Only http:// and https:// URLs can be fetched, not ${url.protocol}.`);
  checkAllowedHost(url, context.env ?? process.env);
  if (args.body !== undefined && (method === 'GET' || method === 'HEAD'))
    throw new Error(`A ${method} request has no body; use POST, PUT or PATCH.`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(args.headers ?? {})) {
    if (FORBIDDEN_HEADERS.has(name.toLowerCase()))
      throw new Error(`The ${name} header is set by the tool itself.`);
    try {
      headers.set(name, String(value));
    } catch (error) {
      throw new Error(`${JSON.stringify(name)}: ${JSON.stringify(value)} is not a valid header.`, {
        cause: error,
      });
    }
  }
  const timeoutMs = clamp(args.timeout_ms ?? DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS);
  const maxBytes = clamp(args.max_bytes ?? DEFAULT_MAX_BYTES, 1, MAX_BYTES);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal =
    context.signal === undefined ? timeout : AbortSignal.any([context.signal, timeout]);
  const started = performance.now();
  let response;
  try {
    response = await fetch(url, { method, headers, body: args.body, signal, redirect: 'follow' });
  } catch (error) {
    if (timeout.aborted)
      throw new Error(`No answer from ${url.host} within ${timeoutMs} ms.`, { cause: error });
    if (context.signal?.aborted) throw new Error('The request was cancelled.', { cause: error });
    const reason = error?.cause?.code ?? error?.cause?.message ?? error?.message;
    throw new Error(`Requesting ${url.href} failed: ${reason}.`, { cause: error });
  }
  let body;
  try {
    body = await readCapped(response, maxBytes);
  } catch (error) {
    if (timeout.aborted)
      throw new Error(`${url.host} did not finish sending the body within ${timeoutMs} ms.`, {
        cause: error,
      });
    throw error;
  }
  const contentType = response.headers.get('content-type') ?? '';
  const textual = isTextual(contentType, body.bytes);
  return {
    url: response.url || url.href,
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    headers: Object.fromEntries(response.headers),
    body: textual
      ? new TextDecoder('utf-8').decode(body.bytes)
      : Buffer.from(body.bytes).toString('base64'),
    bodyEncoding: textual ? 'text' : 'base64',
    bytes: body.bytes.length,
    truncated: body.truncated,
    elapsedMs: Math.round(performance.now() - started),
  };
}

async function readCapped(response, maxBytes) {
  if (response.body === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}

/**
 * HTTP_ALLOWED_HOSTS (comma-separated, `*.example.com` wildcards) restricts the hosts the
 * tools reach; unset or empty allows every host.
 */
function checkAllowedHost(url, env) {
  const allowed = (env.HTTP_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (allowed.length === 0) return;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const hostWithPort = url.port === '' ? host : `${host}:${url.port}`;
  const ok = allowed.some((pattern) => {
    if (pattern.startsWith('*.'))
      return host.endsWith(pattern.slice(1)) && host !== pattern.slice(2);
    return pattern === host || pattern === hostWithPort;
  });
  if (!ok) throw new Error(`${url.host} is not in HTTP_ALLOWED_HOSTS (${allowed.join(', ')}).`);
}

function isTextual(contentType, bytes) {
  const type = contentType.toLowerCase();
  if (
    /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|csv|yaml|html)\b/.test(type)
  )
    return true;
  if (type !== '') return false;
  // No content type: text if it decodes as UTF-8 without control bytes.
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 4096));
    for (const char of text) {
      const code = char.charCodeAt(0);
      if (code < 0x09 || (code > 0x0d && code < 0x20)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function clamp(value, min, max) {
  const n = Math.trunc(Number(value));
  if (!Number.isFinite(n)) return min;
  return Math.min(max, Math.max(min, n));
}
