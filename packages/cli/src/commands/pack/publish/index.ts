import path from 'node:path';
import { ToolpackError, type Diagnostic } from '@toolpack/core';
import {
  createHttpRegistry,
  isHttpUrl,
  readManifest,
  RegistryError,
  resolveRegistryLocation,
  type VersionDoc,
} from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { buildPack } from '../build-pack.ts';

export interface PublishPackOptions extends CommandContext {
  /** The pack folder (holds toolpack.yaml), relative to `cwd`. */
  dir: string;
  /** The publish token (default: $TOOLPACK_TOKEN). */
  token?: string;
  /** A registry URL (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  /**
   * The pack's problems, once it is packed and before the upload: the upload can still fail
   * (an unreachable registry throws), and the problems are worth seeing either way.
   */
  onPacked?: (diagnostics: Diagnostic[]) => void;
}

export interface PublishReport {
  /** The registry published to. */
  location: string;
  /** What the registry now serves. Neither this nor `refused` when the pack has an error. */
  published?: VersionDoc;
  /** The registry's refusal (an existing version, another owner's name, a bad token, problems). */
  refused?: RegistryError;
}

/** Packs a folder and uploads it to a registry (POST /v0/packs). */
export async function publishPack(options: PublishPackOptions): Promise<PublishReport> {
  const { cwd, env } = options;
  const dir = path.resolve(cwd, options.dir);
  const token = options.token ?? env.TOOLPACK_TOKEN;
  if (token === undefined || token === '') {
    throw new ToolpackError('E_USAGE', 'Publishing needs a token.', {
      hint: 'Pass --token <token> or set TOOLPACK_TOKEN.',
    });
  }
  const manifest = await readManifest(cwd);
  const { location } = resolveRegistryLocation({
    flag: options.registry,
    env,
    manifestRegistry: manifest.manifest?.registry,
    cwd,
  });
  if (!isHttpUrl(location)) {
    throw new ToolpackError(
      'E_USAGE',
      `Cannot publish to ${location}: publishing needs a registry URL.`,
      {
        hint: 'A folder registry is a folder of pack sources: copy the pack folder into it instead.',
      },
    );
  }
  const { diagnostics, built } = await buildPack(dir);
  options.onPacked?.(diagnostics);
  if (built === undefined) return { location };
  try {
    const published = await createHttpRegistry({ url: location }).publish(built.tarball.tarball, {
      token,
    });
    return { location, published };
  } catch (error) {
    if (!(error instanceof RegistryError)) throw error;
    return { location, refused: error };
  }
}
