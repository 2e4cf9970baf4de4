import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import {
  buildVersionDoc,
  computeIntegrity,
  writePackFiles,
  type PackLimits,
} from '@toolpack/packs';
import type { VersionDoc } from '../documents.ts';
import { claimBlobForPublish, removeBlobIfUnreferenced } from '../storage/blob-hygiene.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { computeBlobKey } from '../storage/fs-blob-store.ts';
import type { AddVersionResult, MetadataStore } from '../storage/metadata-store.ts';
import type { PackToolLister } from './list-pack-tools.ts';
import { readPackUpload } from './read-pack-upload.ts';

export interface PublishContext {
  store: MetadataStore;
  blobs: BlobStore;
  limits: Partial<PackLimits>;
  listTools: PackToolLister;
  /** Where uploads are unpacked to be read by discovery; emptied after each publish. */
  workDir: string;
  now?: () => Date;
}

export interface PublishRequest {
  bytes: Uint8Array;
  /** The owner of the token that publishes. */
  owner: string;
  /** The token id (`seed` for the official packs). */
  publishedBy: string;
  /**
   * Aborting gives the publish up (503) unless its version is already committed; a tarball
   * it already wrote is removed. The registry aborts publishes a closing drain runs out of
   * time for.
   */
  signal?: AbortSignal;
}

export type PublishOutcome =
  | { status: 201; doc: VersionDoc; warnings: Diagnostic[] }
  | {
      status: 403 | 409 | 422 | 503;
      code: Diagnostic['code'];
      message: string;
      problems: Diagnostic[];
    };

/**
 * Publishes one pack tarball: the one path every publish takes, an upload over HTTP and the
 * seeding of official packs alike. In order: the tarball and manifest (422), the owner
 * (403), the version (409), then the whole pack's tools, every problem at once (422).
 */
export async function publishPack(
  context: PublishContext,
  request: PublishRequest,
): Promise<PublishOutcome> {
  const read = readPackUpload(request.bytes, context.limits);
  if (!read.ok) return invalid(read.problems);
  const { manifest, files } = read.upload;
  const { name, version } = manifest;

  const owner = await context.store.getPackOwner(name);
  const denial = checkOwnership({ name, owner, publisher: request.owner });
  if (denial !== undefined)
    return { status: 403, code: 'E_NOT_OWNER', message: denial, problems: [] };
  if ((await context.store.getVersion(name, version)) !== undefined) return exists(name, version);

  const { signal } = request;
  if (isAborted(signal)) return closing(name, version);
  await mkdir(context.workDir, { recursive: true });
  const dir = await mkdtemp(path.join(context.workDir, 'publish-'));
  let listing;
  try {
    await writePackFiles(files, dir);
    listing = await context.listTools({
      dir,
      manifest,
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // Nothing is written yet: giving up now leaves nothing behind.
  if (isAborted(signal)) return closing(name, version);
  const problems = listing.diagnostics.filter((d) => d.severity === 'error');
  if (listing.tools.length === 0 && problems.length === 0) {
    problems.push(
      createDiagnostic(
        'error',
        'E_PACK_NO_TOOLS',
        `${name}@${version} serves no tools.`,
        { path: 'toolpack.yaml' },
        'Check that sources: points at the folders and modules that hold the tools.',
      ),
    );
  }
  if (problems.length > 0) return invalid(problems);

  const blobKey = computeBlobKey(request.bytes);
  const doc = buildVersionDoc({
    manifest,
    tools: listing.tools,
    tarball: '',
    integrity: computeIntegrity(request.bytes),
    size: request.bytes.length,
    fileCount: files.length,
  });
  // The blob is written only now that the pack is known good, under a claim that keeps a
  // concurrent clean-up of the same bytes from deleting it before the version holds it.
  const claimId = randomUUID();
  const now = context.now ?? (() => new Date());
  const claimed = await claimBlobForPublish(context.store, blobKey, {
    id: claimId,
    now,
    ...(signal === undefined ? {} : { signal }),
  });
  if (!claimed) return closing(name, version);
  let added: AddVersionResult | undefined;
  try {
    await context.blobs.put(blobKey, request.bytes);
    if (!isAborted(signal)) {
      added = await context.store.addVersion({
        owner: owner ?? request.owner,
        doc,
        blobKey,
        publishedAt: now().toISOString(),
        publishedBy: request.publishedBy,
      });
    }
  } finally {
    if (added?.status === 'created') {
      // The version holds the blob now; a claim left behind only expires.
      await context.store.releaseBlobClaim(blobKey, claimId).catch(() => {});
    } else {
      await abandonBlob(context, blobKey, claimId);
    }
  }
  if (added === undefined) return closing(name, version);
  // Someone else may have claimed the name or the version while the tools were being read.
  if (added.status === 'exists') return exists(name, version);
  if (added.status === 'owned-by-other') {
    return {
      status: 403,
      code: 'E_NOT_OWNER',
      message: describeDenial(name, added.owner, request.owner),
      problems: [],
    };
  }
  return {
    status: 201,
    doc: added.version.doc,
    warnings: [...read.warnings, ...listing.diagnostics.filter((d) => d.severity !== 'error')],
  };
}

export interface OwnershipInput {
  name: string;
  /** The owner recorded when the name was first published, if it was. */
  owner: string | undefined;
  /** The owner of the token asking. */
  publisher: string;
}

/**
 * `owner/name` belongs to `owner`; a bare name to whoever published it first. Returns why
 * `publisher` may not change `name`, or undefined when it may.
 */
export function checkOwnership(input: OwnershipInput): string | undefined {
  const slash = input.name.indexOf('/');
  const scope = slash === -1 ? undefined : input.name.slice(0, slash);
  const owner = input.owner ?? scope;
  if (owner === undefined || owner === input.publisher) return undefined;
  return describeDenial(input.name, owner, input.publisher);
}

function describeDenial(name: string, owner: string, publisher: string): string {
  return `${name} belongs to ${owner}; this token publishes for ${publisher}. Publish it as ${publisher}/${name.slice(name.indexOf('/') + 1)}, or ask ${owner} for a token.`;
}

function exists(name: string, version: string): PublishOutcome {
  return {
    status: 409,
    code: 'E_VERSION_EXISTS',
    message: `${name}@${version} already exists; versions are immutable and a version is never reused, even after a yank. Raise version: in toolpack.yaml.`,
    problems: [],
  };
}

/**
 * Undoes this publish's blob write: the blob goes unless a version references it or another
 * publish of the same bytes holds it. When the store cannot say (it failed, or closed under
 * us), the blob stays for `sweepOrphanBlobs`: deleting blind could take a blob a version needs.
 */
async function abandonBlob(context: PublishContext, key: string, claimId: string): Promise<void> {
  try {
    await context.store.releaseBlobClaim(key, claimId);
    await removeBlobIfUnreferenced(context.store, context.blobs, key, {
      ...(context.now === undefined ? {} : { now: context.now }),
    });
  } catch {
    // Left for the sweep, as above.
  }
}

// A function, not `signal?.aborted`, so TypeScript does not narrow it to false after one check.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function closing(name: string, version: string): PublishOutcome {
  return {
    status: 503,
    code: 'E_REGISTRY_CLOSING',
    message: `The registry is shutting down; ${name}@${version} was not published.`,
    problems: [],
  };
}

function invalid(problems: Diagnostic[]): PublishOutcome {
  return {
    status: 422,
    code: 'E_PACK_INVALID',
    message: `The pack has ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}; nothing was published.`,
    problems,
  };
}
