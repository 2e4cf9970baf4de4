import type { Diagnostic } from '@toolpack/core';
import { listProjectPacks, type ProjectPack } from '@toolpack/packs';
import { displayPath } from '../../../tool-view.ts';

export interface ListPacksOptions {
  cwd: string;
}

export interface PackListing {
  /** What `mcp pack list --json` prints, folders relative to the project. */
  packs: ProjectPack[];
  /** Problems of toolpack.yaml and toolpack.lock that still let the list be read. */
  diagnostics: Diagnostic[];
}

/** The project's packs: range, locked version and whether each is installed. */
export async function listPacks(options: ListPacksOptions): Promise<PackListing> {
  const { packs, diagnostics } = await listProjectPacks(options.cwd);
  return {
    packs: packs.map((p) => ({ ...p, dir: displayPath(p.dir, options.cwd) })),
    diagnostics,
  };
}
