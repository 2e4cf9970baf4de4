import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LEAST_PERMISSIONS, type PackPermissions } from '@toolpack/core';
import { computeIntegrity } from '../integrity/integrity.ts';
import { parseManifest, readManifest, MANIFEST_FILE } from '../manifest/parse-manifest.ts';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import { toFileStem } from '../names/pack-names.ts';
import { writePackFiles } from '../project/stage-pack.ts';
import type { DescribePackTools } from '../registry/registry-client.ts';
import type { PackDist, PackToolSummary, VersionDoc } from '../registry/registry-types.ts';
import { searchPacks } from '../registry/search-packs.ts';
import { buildPackDoc, buildVersionDoc } from '../registry/version-doc.ts';
import { createPackTarball } from '../tarball/create-tarball.ts';
import { inspectTarball } from '../tarball/read-tarball.ts';
import type { PackLimits } from '../tarball/limits.ts';
import type { RegistryProblem } from '../registry/registry-error.ts';

export interface TestRegistryOptions {
  /** A folder of pack sources (each sub-folder with a toolpack.yaml is a pack), or a list of pack folders. */
  packs?: string | readonly string[];
  /** Bearer token -> the owner it may publish for (`*`: any pack). */
  tokens?: Record<string, string>;
  /** Lists a pack's tools for its VersionDoc (the CLI's tests pass discovery). */
  describeTools?: DescribePackTools;
  /** Holds each tarball response this long after its first half: a slow download. */
  tarballDelayMs?: number;
  limits?: Partial<PackLimits>;
}

export interface TestRegistry {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request received, in order (`GET /v0/packs?q=x`). */
  requests: string[];
  /** Adds a version without HTTP or a token; returns its VersionDoc or the problems. */
  add(tarball: Buffer): Promise<VersionDoc | RegistryProblem[]>;
  /** Serves other bytes for a version's tarball, keeping the recorded integrity (tamper tests). */
  replaceTarball(name: string, version: string, bytes: Buffer): void;
  /** Adds a version whose tarball is `bytes` as is, with their integrity (hostile-tarball tests). */
  addRaw(
    doc: {
      name: string;
      version: string;
      description?: string;
      tools?: PackToolSummary[];
      permissions?: PackPermissions;
    },
    bytes: Buffer,
  ): void;
  /** Rewrites a version's `dist` as a hostile registry would (a tarball on another host, `data:`). */
  setDist(name: string, version: string, dist: Partial<PackDist>): void;
  /**
   * Rewrites the permissions a version's VersionDoc states, as a hostile or stale registry
   * would (showing less than the tarball's toolpack.yaml asks); `undefined` drops them, as an
   * older registry does.
   */
  setPermissions(name: string, version: string, permissions: PackPermissions | undefined): void;
  /** The stored tarball of a version, as published. */
  tarballOf(name: string, version: string): Buffer;
  deprecate(name: string, version: string, message: string): void;
  yank(name: string, version: string): void;
  close(): Promise<void>;
}

interface StoredVersion {
  doc: VersionDoc;
  tarball: Buffer;
}

interface StoredPack {
  owner: string;
  versions: Map<string, StoredVersion>;
}

const OFFICIAL_OWNER = 'toolpack';

/**
 * A loopback registry speaking the Registry API (docs/architecture.md) from memory, seeded
 * from pack folders: the reference the client is tested against (and that apps/registry's
 * tests can reuse). Errors are `{ "error": { code, message }, "problems": [{ "message", "path"?, "line"? }] }`.
 */
export async function startTestRegistry(options: TestRegistryOptions = {}): Promise<TestRegistry> {
  const packs = new Map<string, StoredPack>();
  const requests: string[] = [];
  let baseUrl = '';

  const tarballUrl = (name: string, version: string) =>
    `${baseUrl}/v0/packs/${encodeURIComponent(name)}/-/${toFileStem(name)}-${version}.tgz`;

  const store = (
    owner: string,
    manifest: PackManifest,
    tools: PackToolSummary[],
    tarball: Buffer,
    fileCount: number,
  ) => {
    const doc = buildVersionDoc({
      manifest,
      tools,
      tarball: tarballUrl(manifest.name, manifest.version),
      integrity: computeIntegrity(tarball),
      size: tarball.length,
      fileCount,
    });
    let pack = packs.get(manifest.name);
    if (pack === undefined) {
      pack = { owner, versions: new Map() };
      packs.set(manifest.name, pack);
    }
    pack.versions.set(manifest.version, { doc, tarball });
    return doc;
  };

  const describeTarball = async (
    tarball: Buffer,
  ): Promise<
    { manifest: PackManifest; tools: PackToolSummary[]; fileCount: number } | RegistryProblem[]
  > => {
    const inspected = inspectTarball(tarball, {
      label: 'The tarball',
      ...(options.limits ? { limits: options.limits } : {}),
    });
    if (inspected.files === undefined)
      return inspected.problems.map((p) => ({ message: p.message, path: p.path, code: p.code }));
    const file = inspected.files.find((f) => f.path === MANIFEST_FILE);
    if (file === undefined)
      return [
        { message: `The tarball has no package/${MANIFEST_FILE}.`, code: 'E_PACK_NO_MANIFEST' },
      ];
    const parsed = parseManifest(file.data.toString('utf8'), { path: MANIFEST_FILE, kind: 'pack' });
    if (parsed.manifest === undefined) {
      return parsed.diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => ({
          message: d.message,
          path: d.path,
          code: d.code,
          ...(d.line === undefined ? {} : { line: d.line }),
        }));
    }
    let tools: PackToolSummary[] = [];
    if (options.describeTools) {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'toolpack-test-registry-'));
      try {
        await writePackFiles(inspected.files, path.join(dir, 'package'));
        tools = await options.describeTools(path.join(dir, 'package'), parsed.manifest);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    return { manifest: parsed.manifest, tools, fileCount: inspected.files.length };
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendError(response, 500, (error as Error).message);
    });
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', baseUrl);
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (!url.pathname.startsWith('/v0/packs')) return sendError(response, 404, 'Not found.');
    const segments = url.pathname
      .slice('/v0/packs'.length)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
    if (request.method === 'GET' && segments.length === 0) {
      const limit = url.searchParams.get('limit');
      return send(
        response,
        200,
        searchPacks(
          [...packs.entries()].flatMap(([name, pack]) => {
            const packDoc = buildPackDoc([...pack.versions.values()].map((v) => v.doc));
            const latest =
              packDoc.latest === undefined ? undefined : packDoc.versions[packDoc.latest];
            if (latest === undefined) return [];
            return [
              {
                name,
                version: latest.version,
                description: latest.description,
                tags: latest.tags,
                toolCount: latest.tools.length,
                tools: latest.tools,
              },
            ];
          }),
          {
            q: url.searchParams.get('q') ?? '',
            tags: url.searchParams.getAll('tag'),
            ...(url.searchParams.get('cursor') === null
              ? {}
              : { cursor: url.searchParams.get('cursor')! }),
            ...(limit === null ? {} : { limit: Number(limit) || 20 }),
          },
        ),
      );
    }
    if (request.method === 'POST' && segments.length === 0) return publish(request, response);
    const marker = segments.findIndex((s, i) => i > 0 && (s === 'versions' || s === '-'));
    const name = (marker === -1 ? segments : segments.slice(0, marker)).join('/');
    const pack = packs.get(name);
    if (pack === undefined) return sendError(response, 404, `No pack named ${name}.`);
    if (marker === -1 && request.method === 'GET')
      return send(response, 200, buildPackDoc([...pack.versions.values()].map((v) => v.doc)));
    const rest = segments.slice(marker);
    if (rest[0] === '-' && request.method === 'GET') {
      const file = rest[1] ?? '';
      const stored = [...pack.versions.values()].find(
        (v) => `${toFileStem(name)}-${v.doc.version}.tgz` === file,
      );
      if (stored === undefined) return sendError(response, 404, `No tarball ${file}.`);
      return sendTarball(response, stored.tarball, options.tarballDelayMs ?? 0);
    }
    const version = rest[1] ?? '';
    const stored = pack.versions.get(version);
    if (stored === undefined) return sendError(response, 404, `${name} has no version ${version}.`);
    if (rest.length === 2 && request.method === 'GET') return send(response, 200, stored.doc);
    if (
      rest.length === 3 &&
      request.method === 'POST' &&
      (rest[2] === 'deprecate' || rest[2] === 'yank')
    ) {
      const owner = authorize(request);
      if (owner === undefined) return sendError(response, 401, 'A valid bearer token is required.');
      if (owner !== '*' && owner !== pack.owner)
        return sendError(response, 403, `${name} belongs to ${pack.owner}.`);
      const body = await readBody(request);
      if (rest[2] === 'yank') stored.doc.yanked = true;
      else {
        let message = 'deprecated';
        try {
          const parsed = JSON.parse(body.toString('utf8')) as { message?: unknown };
          if (typeof parsed.message === 'string' && parsed.message !== '') message = parsed.message;
        } catch {
          // No body: the default message.
        }
        stored.doc.deprecated = message;
      }
      return send(response, 200, stored.doc);
    }
    return sendError(response, 405, `${request.method} is not allowed here.`);
  };

  const authorize = (request: IncomingMessage): string | undefined => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    return match?.[1] === undefined ? undefined : options.tokens?.[match[1]];
  };

  const publish = async (request: IncomingMessage, response: ServerResponse) => {
    const owner = authorize(request);
    if (owner === undefined) return sendError(response, 401, 'A valid bearer token is required.');
    const tarball = await readBody(request);
    const described = await describeTarball(tarball);
    if (Array.isArray(described))
      return sendError(response, 422, 'The pack has problems.', described);
    const { manifest } = described;
    const existing = packs.get(manifest.name);
    const packOwner =
      existing?.owner ?? (manifest.name.includes('/') ? manifest.name.split('/')[0]! : owner);
    if (owner !== '*' && owner !== packOwner)
      return sendError(
        response,
        403,
        `${manifest.name} belongs to ${packOwner}; this token publishes for ${owner}.`,
      );
    if (existing?.versions.has(manifest.version))
      return sendError(
        response,
        409,
        `${manifest.name}@${manifest.version} already exists; versions are immutable.`,
      );
    return send(
      response,
      201,
      store(
        packOwner === '*' ? OFFICIAL_OWNER : packOwner,
        manifest,
        described.tools,
        tarball,
        described.fileCount,
      ),
    );
  };

  const readBody = async (request: IncomingMessage): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  for (const dir of await listPackDirs(options.packs)) {
    const read = await readManifest(dir, { kind: 'pack' });
    if (read.manifest === undefined) continue;
    const packed = await createPackTarball({
      dir,
      ...(options.limits ? { limits: options.limits } : {}),
    });
    if (packed.tarball === undefined) continue;
    const tools = options.describeTools ? await options.describeTools(dir, read.manifest) : [];
    store(OFFICIAL_OWNER, read.manifest, tools, packed.tarball, packed.files.length);
  }

  return {
    url: baseUrl,
    requests,
    async add(tarball) {
      const described = await describeTarball(tarball);
      if (Array.isArray(described)) return described;
      return store(
        OFFICIAL_OWNER,
        described.manifest,
        described.tools,
        tarball,
        described.fileCount,
      );
    },
    replaceTarball(name, version, bytes) {
      const stored = packs.get(name)?.versions.get(version);
      if (stored === undefined) throw new Error(`No ${name}@${version} to replace.`);
      stored.tarball = bytes;
    },
    addRaw(doc, bytes) {
      const manifest = {
        name: doc.name,
        version: doc.version,
        description: doc.description ?? 'A test pack.',
        tags: [],
        sources: [],
        env: [],
        permissions: doc.permissions ?? LEAST_PERMISSIONS,
        packs: {},
        dependencies: [],
      } satisfies PackManifest;
      store(OFFICIAL_OWNER, manifest, doc.tools ?? [], bytes, 0);
    },
    setDist(name, version, dist) {
      const stored = packs.get(name)?.versions.get(version);
      if (stored === undefined) throw new Error(`No ${name}@${version} to change.`);
      stored.doc.dist = { ...stored.doc.dist, ...dist };
    },
    setPermissions(name, version, permissions) {
      const stored = packs.get(name)?.versions.get(version);
      if (stored === undefined) throw new Error(`No ${name}@${version} to change.`);
      if (permissions === undefined) delete stored.doc.permissions;
      else stored.doc.permissions = permissions;
    },
    tarballOf(name, version) {
      const stored = packs.get(name)?.versions.get(version);
      if (stored === undefined) throw new Error(`No ${name}@${version}.`);
      return stored.tarball;
    },
    deprecate(name, version, message) {
      const stored = packs.get(name)?.versions.get(version);
      if (stored !== undefined) stored.doc.deprecated = message;
    },
    yank(name, version) {
      const stored = packs.get(name)?.versions.get(version);
      if (stored !== undefined) stored.doc.yanked = true;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function listPackDirs(packs: string | readonly string[] | undefined): Promise<string[]> {
  if (packs === undefined) return [];
  if (typeof packs !== 'string') return [...packs];
  const entries = await readdir(packs, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => path.join(packs, e.name))
    .sort();
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** The error body apps/registry sends too: `{ "error": { code, message }, "problems": [...] }`. */
function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  problems: RegistryProblem[] = [],
): void {
  const code =
    {
      401: 'E_UNAUTHORIZED',
      403: 'E_FORBIDDEN',
      404: 'E_NOT_FOUND',
      405: 'E_METHOD',
      409: 'E_VERSION_EXISTS',
      422: 'E_INVALID_PACK',
    }[status] ?? 'E_INTERNAL';
  send(response, status, { error: { code, message }, problems });
}

function sendTarball(response: ServerResponse, bytes: Buffer, delayMs: number): void {
  response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length });
  if (delayMs <= 0) {
    response.end(bytes);
    return;
  }
  const half = Math.floor(bytes.length / 2);
  response.write(bytes.subarray(0, half));
  setTimeout(() => response.end(bytes.subarray(half)), delayMs);
}
