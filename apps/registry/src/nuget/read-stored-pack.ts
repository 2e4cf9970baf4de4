import { inspectTarball, parseManifest, MANIFEST_FILE, type TarballFile } from '@toolpack/packs';
import type { RegistryContext } from '../http/registry-context.ts';
import type { StoredVersion } from '../storage/metadata-store.ts';
import { describeNugetIdentity, type NugetIdentity } from './nuget-ids.ts';
import { readKeptDependencies } from './nupkg-to-pack.ts';

/** Identities by blob key; a blob never changes, so an entry never goes stale. */
const IDENTITY_CACHE_SIZE = 2000;
const identities = new Map<string, NugetIdentity>();

export interface StoredPackFiles {
  identity: NugetIdentity;
  files: TarballFile[];
}

/** The files of a published version, read back from its tarball (checked as at publish). */
export async function readStoredPackFiles(
  context: RegistryContext,
  stored: StoredVersion,
): Promise<StoredPackFiles | undefined> {
  const blob = await context.blobs.open(stored.blobKey);
  if (blob === undefined) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of blob.stream()) chunks.push(chunk as Buffer);
  const { files } = inspectTarball(Buffer.concat(chunks), { limits: context.limits });
  const manifestFile = files?.find((file) => file.path === MANIFEST_FILE);
  if (files === undefined || manifestFile === undefined) return undefined;
  const { manifest } = parseManifest(manifestFile.data.toString('utf8'), {
    path: MANIFEST_FILE,
    kind: 'pack',
  });
  if (manifest === undefined) return undefined;
  const described = describeNugetIdentity(
    manifest,
    files.map((file) => file.path),
  );
  const dependencies =
    described.module?.kind === 'module' ? readKeptDependencies(files, described.module.path) : [];
  const identity = dependencies.length === 0 ? described : { ...described, dependencies };
  remember(stored.blobKey, identity);
  return { identity, files };
}

/** The package id of a version and whether it is a PowerShell module, cached per tarball. */
export async function readNugetIdentity(
  context: RegistryContext,
  stored: StoredVersion,
): Promise<NugetIdentity> {
  const known = identities.get(stored.blobKey);
  if (known !== undefined) return known;
  const read = await readStoredPackFiles(context, stored);
  return read?.identity ?? { id: stored.doc.name.replace('/', '.') };
}

function remember(key: string, identity: NugetIdentity): void {
  identities.delete(key);
  identities.set(key, identity);
  if (identities.size > IDENTITY_CACHE_SIZE) {
    const oldest = identities.keys().next().value;
    if (oldest !== undefined) identities.delete(oldest);
  }
}
