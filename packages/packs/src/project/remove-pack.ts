import { lstat } from 'node:fs/promises';
import { ToolpackError } from '@toolpack/core';
import { serializeLockfile } from '../lock/lockfile.ts';
import { removeManifestPack } from '../manifest/edit-manifest.ts';
import { writePackDependency } from '../names/pack-names.ts';
import {
  commitProjectChange,
  packInstallDir,
  readProjectState,
  removeEmptyPacksDirs,
} from './project-files.ts';

export interface RemovePackReport {
  alias: string;
  name: string;
  /** The version that was installed, when the lockfile knew it. */
  version?: string;
  /** toolpack.yaml held nothing else, so it was deleted (as was toolpack.lock when empty). */
  manifestDeleted: boolean;
  lockDeleted: boolean;
}

/**
 * `mcp pack remove`: takes the pack (by alias, or by name when one alias serves it) out of
 * toolpack.yaml, toolpack.lock and `.toolpack/packs/`. Files it leaves empty are deleted, so
 * adding then removing a pack in an empty folder leaves it empty.
 */
export async function removePack(options: {
  projectDir: string;
  name: string;
}): Promise<RemovePackReport> {
  const { projectDir } = options;
  const state = await readProjectState(projectDir);
  const dependencies = state.manifest.manifest?.dependencies ?? [];
  const lockPacks = state.lock.lock?.packs ?? {};
  const byName = dependencies.filter((d) => d.name === options.name);
  if (byName.length > 1 && !dependencies.some((d) => d.alias === options.name)) {
    throw new ToolpackError(
      'E_USAGE',
      `${options.name} is installed under several aliases (${byName.map((d) => d.alias).join(', ')}).`,
      {
        hint: 'Name the alias to remove: mcp pack remove <alias>.',
      },
    );
  }
  const dependency = dependencies.find((d) => d.alias === options.name) ?? byName[0];
  const alias =
    dependency?.alias ??
    (lockPacks[options.name] !== undefined
      ? options.name
      : Object.entries(lockPacks).find(([, entry]) => entry.name === options.name)?.[0]);
  const dirExists = async (a: string) =>
    lstat(packInstallDir(projectDir, a)).then(
      () => true,
      () => false,
    );
  const resolvedAlias = alias ?? ((await dirExists(options.name)) ? options.name : undefined);
  if (resolvedAlias === undefined) {
    throw new ToolpackError(
      'E_PACK_NOT_INSTALLED',
      `No pack ${options.name} is installed in this project.`,
      {
        hint: 'See the installed packs with mcp pack list.',
      },
    );
  }
  const entry = lockPacks[resolvedAlias];

  let manifest: string | null | undefined;
  let manifestDeleted = false;
  if (dependency !== undefined && state.manifest.text !== undefined) {
    const removed = removeManifestPack(state.manifest.text, writePackDependency(dependency).key);
    manifestDeleted = removed.empty;
    manifest = removed.empty ? null : removed.text;
  }
  let lock: string | null | undefined;
  let lockDeleted = false;
  if (state.lock.lock !== undefined && entry !== undefined) {
    const packs = { ...state.lock.lock.packs };
    delete packs[resolvedAlias];
    lockDeleted = Object.keys(packs).length === 0;
    lock = lockDeleted ? null : serializeLockfile({ ...state.lock.lock, packs });
  }
  await commitProjectChange(projectDir, {
    packs: [{ alias: resolvedAlias }],
    ...(manifest === undefined ? {} : { manifest }),
    ...(lock === undefined ? {} : { lock }),
  });
  await removeEmptyPacksDirs(projectDir);
  return {
    alias: resolvedAlias,
    name: dependency?.name ?? entry?.name ?? options.name,
    ...(entry === undefined ? {} : { version: entry.version }),
    manifestDeleted,
    lockDeleted,
  };
}
