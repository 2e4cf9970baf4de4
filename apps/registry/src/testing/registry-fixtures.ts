import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPackTarball } from '@toolpack/packs';
import {
  startRegistry,
  type RunningRegistry,
  type StartRegistryOptions,
} from '../start-registry.ts';

/** The fixture packs the registry's own tests publish (real pack folders). */
export const FIXTURE_PACKS = path.join(import.meta.dirname, '..', 'http', 'fixtures', 'packs');

const temporaryDirs: string[] = [];

export async function makeTempDir(prefix = 'toolpack-registry-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  temporaryDirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(
    temporaryDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })),
  );
}

export interface PackFixtureOptions {
  /** Replaces `version:` of the fixture's toolpack.yaml. */
  version?: string;
  /** Replaces `name:`. */
  name?: string;
  /** Replaces `description:`. */
  description?: string;
  /** Top-level YAML added at the end of toolpack.yaml, e.g. a `permissions:` block. */
  append?: string;
}

/** Packs a fixture pack as `mcp pack publish` would, optionally as another name or version. */
export function packFixture(fixture: string, options: PackFixtureOptions = {}): Promise<Buffer> {
  return packFolder(path.join(FIXTURE_PACKS, fixture), options);
}

/** Packs a copy of the pack folder `source`, its manifest edited as `options` say. */
export async function packFolder(
  source: string,
  options: PackFixtureOptions = {},
): Promise<Buffer> {
  const dir = path.join(await makeTempDir('toolpack-pack-'), path.basename(source));
  await cp(source, dir, { recursive: true });
  const manifestPath = path.join(dir, 'toolpack.yaml');
  let text = await readFile(manifestPath, 'utf8');
  if (options.version !== undefined)
    text = text.replace(/^version: .*$/m, `version: ${options.version}`);
  if (options.name !== undefined) text = text.replace(/^name: .*$/m, `name: ${options.name}`);
  if (options.description !== undefined)
    text = text.replace(
      /^description: .*$/m,
      `description: ${JSON.stringify(options.description)}`,
    );
  if (options.append !== undefined) text = `${text.trimEnd()}\n${options.append}`;
  await writeFile(manifestPath, text);
  const packed = await createPackTarball({ dir });
  if (packed.tarball === undefined) {
    throw new Error(
      `${path.basename(source)} does not pack: ${packed.diagnostics.map((d) => d.message).join('; ')}`,
    );
  }
  return packed.tarball;
}

export interface TestRegistryApp {
  registry: RunningRegistry;
  url: string;
  /** Owner -> a publish token for it. */
  tokens: Record<string, string>;
  publish(tarball: Uint8Array, token?: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** A registry on a free loopback port with an empty data folder, no seed and no rate limits. */
export async function startTestRegistryApp(
  options: StartRegistryOptions & { owners?: string[] } = {},
): Promise<TestRegistryApp> {
  const { owners = ['acme', 'bob'], ...rest } = options;
  const registry = await startRegistry({
    port: 0,
    dataDir: await makeTempDir(),
    seedDir: false,
    rateLimits: false,
    ...rest,
  });
  const tokens: Record<string, string> = {};
  for (const owner of owners) tokens[owner] = (await registry.createToken({ owner })).token;
  return {
    registry,
    url: registry.url,
    tokens,
    publish: (tarball, token, init = {}) =>
      fetch(`${registry.url}/v0/packs`, {
        method: 'POST',
        body: new Uint8Array(tarball),
        ...init,
        headers: {
          'content-type': 'application/gzip',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(init.headers as Record<string, string> | undefined),
        },
      }),
    close: () => registry.close(),
  };
}
