import { stat } from 'node:fs/promises';
import path from 'node:path';
import { findCliPackage } from './find-cli-package.ts';

const FOLDER_ADVICE =
  'or use a folder of packs: --registry <folder> or TOOLPACK_REGISTRY=<folder> (each pack a subfolder with its toolpack.yaml)';

/**
 * How to get a registry on `location` when nothing answers there, or undefined for a registry
 * on another machine (only its owner can start it). The gallery server is a private package of
 * the Toolpack repository, started by `pnpm registry` in a clone: an `mcp` run from a clone
 * names that clone's command; one installed by scripts/install-mcp.sh (or from tarballs) has
 * no registry beside it, so it says where one comes from and what works without one.
 */
export async function describeRegistryStart(location: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return undefined;
  }
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return undefined;
  const clone = await findClone();
  const port = url.port === '' || url.port === '4873' ? '' : ` --port ${url.port}`;
  return clone === undefined
    ? `The gallery server is not part of the installed mcp: start it in a clone of Toolpack with pnpm registry${port} (it serves the official packs on ${url.origin}), ${FOLDER_ADVICE}.`
    : `Start the gallery from this clone: cd ${clone} && pnpm registry${port} (it serves the official packs on ${url.origin}), ${FOLDER_ADVICE}.`;
}

/** The Toolpack clone this CLI runs from, when it runs from one (not from an install). */
async function findClone(): Promise<string | undefined> {
  const cli = await findCliPackage().catch(() => undefined);
  if (cli === undefined) return undefined;
  const root = path.resolve(cli.dir, '..', '..');
  const isFile = (file: string) =>
    stat(path.join(root, file)).then(
      (info) => info.isFile(),
      () => false,
    );
  const [workspace, registry] = await Promise.all([
    isFile('pnpm-workspace.yaml'),
    isFile(path.join('apps', 'registry', 'package.json')),
  ]);
  return workspace && registry ? root : undefined;
}
