import { removePack, type RemovePackReport } from '@toolpack/packs';

export interface RemoveProjectPackOptions {
  cwd: string;
  /** The alias or name of the pack. */
  name: string;
}

/** Removes a pack from the project: toolpack.yaml, toolpack.lock and .toolpack/packs/. */
export function removeProjectPack(options: RemoveProjectPackOptions): Promise<RemovePackReport> {
  return removePack({ projectDir: options.cwd, name: options.name });
}
