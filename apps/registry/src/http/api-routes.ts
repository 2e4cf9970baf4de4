import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatBytes } from '@toolpack/packs';
import { readBearerToken, verifyToken, type VerifiedToken } from '../auth/tokens.ts';
import { publishPack } from '../publish/publish-pack.ts';
import { checkOwnership } from '../publish/publish-pack.ts';
import { isBlobKey } from '../storage/fs-blob-store.ts';
import { discardBody, getClientAddress, readBody, sendError, sendJson } from './http-io.ts';
import type { PackPath } from './pack-path.ts';
import { MULTIPART_OVERHEAD_BYTES, readUpload } from './read-upload.ts';
import { toPackDoc, toVersionDoc, type RegistryContext } from './registry-context.ts';
import { CLOSING_RETRY_AFTER_SECONDS } from './request-drain.ts';
import { encodeCursor, parseSearchParams } from './search-params.ts';

const MAX_ACTION_BODY_BYTES = 16 * 1024;

/** How long a client is told to wait while seed packs are published (a few seconds in all). */
export const SEEDING_RETRY_AFTER_SECONDS = 2;
const SEEDING_HEADERS = { 'retry-after': String(SEEDING_RETRY_AFTER_SECONDS) };

/** An empty or missing answer from a registry still seeding is not the truth: say so. */
export function sendSeeding(response: ServerResponse): void {
  sendError(
    response,
    503,
    {
      code: 'E_REGISTRY_SEEDING',
      message:
        'The registry is still publishing its seed packs, so this answer would be incomplete.',
      hint: `Retry in ${SEEDING_RETRY_AFTER_SECONDS} s; /health answers 200 once it is ready.`,
    },
    SEEDING_HEADERS,
  );
}

export async function handleHealth(
  context: RegistryContext,
  response: ServerResponse,
): Promise<void> {
  const counts = await context.store.countPacks();
  // Not ready while seeding: a load balancer or a test waiting for the gallery waits on.
  if (context.isSeeding())
    return sendJson(response, 503, { status: 'seeding', ...counts }, SEEDING_HEADERS);
  sendJson(response, 200, { status: 'ok', ...counts });
}

/** `GET /v0/packs?q=&tag=&cursor=&limit=` */
export async function handleSearch(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  if (!takeSearchToken(context, request, response)) return;
  const parsed = parseSearchParams(url.searchParams);
  if (!parsed.ok) {
    sendError(response, 400, { code: 'E_BAD_QUERY', message: parsed.message });
    return;
  }
  const { query } = parsed;
  if (context.isSeeding()) return sendSeeding(response);
  const page = await context.store.search(query);
  sendJson(response, 200, {
    packs: page.packs,
    metadata: {
      count: page.packs.length,
      nextCursor: page.hasMore ? encodeCursor(query.offset + query.limit) : null,
    },
  });
}

/** Charges the client's search bucket; answers 429 and returns false when it is empty. */
export function takeSearchToken(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
): boolean {
  if (context.searchLimiter === undefined) return true;
  const decision = context.searchLimiter.take(
    `ip:${getClientAddress(request, context.trustProxy)}`,
  );
  if (decision.allowed) return true;
  sendError(
    response,
    429,
    {
      code: 'E_RATE_LIMITED',
      message: `Too many searches; try again in ${decision.retryAfterSeconds} s.`,
    },
    { 'retry-after': String(decision.retryAfterSeconds) },
  );
  return false;
}

export async function handlePackRoute(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  route: PackPath,
): Promise<void> {
  const method = request.method ?? 'GET';
  const reading = method === 'GET' || method === 'HEAD';
  if (route.kind === 'pack') {
    if (!reading) return sendMethodNotAllowed(response, 'GET, HEAD');
    const pack = await context.store.getPack(route.name);
    if (pack === undefined && context.isSeeding()) return sendSeeding(response);
    if (pack === undefined) return sendPackNotFound(response, route.name);
    return sendJson(response, 200, toPackDoc(context, pack));
  }
  if (route.kind === 'version') {
    if (!reading) return sendMethodNotAllowed(response, 'GET, HEAD');
    const stored = await context.store.getVersion(route.name, route.version);
    if (stored === undefined && context.isSeeding()) return sendSeeding(response);
    if (stored === undefined)
      return sendVersionNotFound(context, response, route.name, route.version);
    return sendJson(response, 200, toVersionDoc(context, stored));
  }
  if (method !== 'POST') return sendMethodNotAllowed(response, 'POST');
  return handleVersionAction(context, request, response, route);
}

/** `POST /v0/packs`: the body is the `.tgz` (raw or multipart), with the publisher's bearer token. */
export async function handlePublish(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const token = await authenticate(context, request, response);
  if (token === undefined) return;
  const bytes = await readPublishUpload(context, request, response);
  if (bytes === undefined) return;

  const outcome = await publishPack(context.publish, {
    bytes,
    owner: token.owner,
    publishedBy: token.id,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
  });
  if (outcome.status === 503) return sendClosing(response, outcome.message);
  if (outcome.status !== 201) {
    return sendError(response, outcome.status, {
      code: outcome.code,
      message: outcome.message,
      problems: outcome.problems,
    });
  }
  const { doc } = outcome;
  const stored = await context.store.getVersion(doc.name, doc.version);
  const served = stored === undefined ? doc : toVersionDoc(context, stored);
  context.log(`published ${doc.name}@${doc.version} (${token.owner}, token ${token.id})`);
  sendJson(response, 201, served, {
    location: `/v0/packs/${encodeURIComponent(doc.name)}/versions/${encodeURIComponent(doc.version)}`,
  });
}

/**
 * The uploaded file of a publish (the body, or its multipart file part) within the size cap;
 * answers 413, 400 or 503 itself and returns undefined.
 */
export async function readPublishUpload(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<Buffer | undefined> {
  const maxBody = context.limits.maxTarballBytes + MULTIPART_OVERHEAD_BYTES;
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBody) {
    sendTooLarge(context, request, response);
    return undefined;
  }
  const body = await readBody(request, maxBody, context.signal);
  if (!body.ok) {
    if (body.reason === 'too-large') sendTooLarge(context, request, response);
    // The rest of the body is not read: the answer says `Connection: close`.
    if (body.reason === 'cancelled')
      sendClosing(response, 'The registry is shutting down; the upload was not read.');
    return undefined;
  }
  const upload = await readUpload(request.headers['content-type'], body.bytes);
  if (!upload.ok) {
    sendError(response, 400, { code: 'E_BAD_UPLOAD', message: upload.message });
    return undefined;
  }
  if (upload.bytes.length > context.limits.maxTarballBytes) {
    sendTooLarge(context, request, response);
    return undefined;
  }
  return upload.bytes;
}

/** `POST .../deprecate` (`{"message": "..."}`) and `.../yank`; `{"undo": true}` reverses either. */
async function handleVersionAction(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  route: Extract<PackPath, { kind: 'action' }>,
): Promise<void> {
  const token = await authenticate(context, request, response);
  if (token === undefined) return;
  const body = await readBody(request, MAX_ACTION_BODY_BYTES);
  if (!body.ok) {
    if (body.reason === 'too-large') {
      void discardBody(request, MAX_ACTION_BODY_BYTES * 4);
      sendError(
        response,
        413,
        { code: 'E_TOO_LARGE', message: 'The request body is too large.' },
        { connection: 'close' },
      );
    }
    return;
  }
  let input: { message?: unknown; undo?: unknown } = {};
  const text = body.bytes.toString('utf8').trim();
  if (text !== '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      input = parsed as typeof input;
    } catch {
      return sendError(response, 400, {
        code: 'E_BAD_BODY',
        message: 'The body must be a JSON object such as {"message": "Use 2.x"} or {"undo": true}.',
      });
    }
  }
  if (input.message !== undefined && typeof input.message !== 'string')
    return sendError(response, 400, { code: 'E_BAD_BODY', message: 'message must be a string.' });
  if (input.undo !== undefined && typeof input.undo !== 'boolean')
    return sendError(response, 400, { code: 'E_BAD_BODY', message: 'undo must be true or false.' });

  const owner = await context.store.getPackOwner(route.name);
  if (owner === undefined) return sendPackNotFound(response, route.name);
  const denial = checkOwnership({ name: route.name, owner, publisher: token.owner });
  if (denial !== undefined)
    return sendError(response, 403, { code: 'E_NOT_OWNER', message: denial });

  const undo = input.undo === true;
  const message =
    typeof input.message === 'string' && input.message.trim() !== ''
      ? input.message.trim().slice(0, 1000)
      : 'This version is deprecated.';
  const updated = await context.store.updateVersion(
    route.name,
    route.version,
    route.action === 'yank' ? { yanked: !undo } : { deprecated: undo ? null : message },
  );
  if (updated === undefined)
    return sendVersionNotFound(context, response, route.name, route.version);
  context.log(
    `${undo ? 'un-' : ''}${route.action === 'yank' ? 'yanked' : 'deprecated'} ${route.name}@${route.version} (${token.owner})`,
  );
  sendJson(response, 200, toVersionDoc(context, updated));
}

/** `GET /v0/blobs/sha512/<hex>.tgz`: immutable, so cacheable forever. */
export async function handleBlob(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  key: string,
): Promise<void> {
  const blob = isBlobKey(key) ? await context.blobs.open(key) : undefined;
  if (blob === undefined)
    return sendError(response, 404, { code: 'E_NOT_FOUND', message: 'No such tarball.' });
  const etag = `"${key.slice(key.indexOf('/') + 1)}"`;
  const headers = {
    'content-type': 'application/gzip',
    'cache-control': 'public, max-age=31536000, immutable',
    etag,
    'access-control-allow-origin': '*',
    'x-content-type-options': 'nosniff',
  };
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    ifNoneMatch !== undefined &&
    ifNoneMatch
      .split(',')
      .some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')
  ) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  response.writeHead(200, { ...headers, 'content-length': String(blob.size) });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  countDownload(context, key);
  const stream = blob.stream();
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}

/**
 * Counts a download for the gallery without holding up the bytes; a count the store fails
 * to record is logged and lost rather than failing the download.
 */
export function countDownload(context: RegistryContext, blobKey: string): void {
  context.store.recordDownload(blobKey).catch((error: unknown) => {
    context.log(`could not count a download of ${blobKey}: ${String(error)}`);
  });
}

/**
 * The publisher behind the request's token (by default its bearer token; NuGet clients send
 * theirs as `X-NuGet-ApiKey`). Answers 429 (rate limited, per token or, without a valid one,
 * per address) or 401 itself and returns undefined.
 */
export async function authenticate(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  presented: string | undefined = readBearerToken(request.headers.authorization),
): Promise<VerifiedToken | undefined> {
  const token = presented === undefined ? undefined : await verifyToken(context.store, presented);
  if (context.publishLimiter !== undefined) {
    const key =
      token === undefined
        ? `ip:${getClientAddress(request, context.trustProxy)}`
        : `token:${token.id}`;
    const decision = context.publishLimiter.take(key);
    if (!decision.allowed) {
      await discardBody(request, context.limits.maxTarballBytes + MULTIPART_OVERHEAD_BYTES);
      sendError(
        response,
        429,
        {
          code: 'E_RATE_LIMITED',
          message: `Too many publish requests; try again in ${decision.retryAfterSeconds} s.`,
        },
        { 'retry-after': String(decision.retryAfterSeconds), connection: 'close' },
      );
      return undefined;
    }
  }
  if (token === undefined) {
    // Answered once the upload is read (up to the cap): closing the connection while the
    // client still writes its package makes it see EPIPE or a reset, not this 401.
    await discardBody(request, context.limits.maxTarballBytes + MULTIPART_OVERHEAD_BYTES);
    sendError(
      response,
      401,
      {
        code: 'E_UNAUTHORIZED',
        message:
          presented === undefined
            ? 'Publishing needs a token: send Authorization: Bearer <token> (NuGet clients: the token as the API key).'
            : 'The token is not valid (unknown, revoked or mistyped).',
        hint: 'Ask the registry admin for a token (toolpack-registry token create --owner NAME).',
      },
      { 'www-authenticate': 'Bearer realm="toolpack"', connection: 'close' },
    );
  }
  return token;
}

function sendTooLarge(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  void discardBody(request, (context.limits.maxTarballBytes + MULTIPART_OVERHEAD_BYTES) * 4);
  sendError(
    response,
    413,
    {
      code: 'E_TARBALL_TOO_LARGE',
      message: `The upload is larger than ${formatBytes(context.limits.maxTarballBytes)}, the largest pack tarball this registry takes.`,
      hint: 'Leave large or generated files out with .toolpackignore.',
    },
    { connection: 'close' },
  );
}

export function sendClosing(response: ServerResponse, message: string): void {
  sendError(
    response,
    503,
    {
      code: 'E_REGISTRY_CLOSING',
      message,
      hint: `Retry in ${CLOSING_RETRY_AFTER_SECONDS} s, or against another instance.`,
    },
    { 'retry-after': String(CLOSING_RETRY_AFTER_SECONDS), connection: 'close' },
  );
}

function sendPackNotFound(response: ServerResponse, name: string): void {
  sendError(response, 404, { code: 'E_PACK_NOT_FOUND', message: `No pack named ${name}.` });
}

async function sendVersionNotFound(
  context: RegistryContext,
  response: ServerResponse,
  name: string,
  version: string,
): Promise<void> {
  const pack = await context.store.getPack(name);
  if (pack === undefined) return sendPackNotFound(response, name);
  const versions = pack.versions.map((v) => v.doc.version).join(', ');
  sendError(response, 404, {
    code: 'E_VERSION_NOT_FOUND',
    message: `${name} has no version ${version}; it has ${versions}.`,
  });
}

export function sendMethodNotAllowed(response: ServerResponse, allow: string): void {
  sendError(response, 405, { code: 'E_METHOD', message: `Use ${allow} here.` }, { allow });
}
