import { ToolpackError, type Diagnostic } from '@toolpack/core';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import type { ToolDefinition } from '../pins/tool-hash.ts';

/** A pack unpacked into a staging folder under `.toolpack/packs/`, not yet in place. */
export interface StagedPackInfo {
  alias: string;
  name: string;
  version: string;
  /** The staging folder (absolute). */
  dir: string;
  manifest: PackManifest;
}

export interface StagedToolCheck {
  /**
   * Per alias, its tools as they would be served (the served name, description, input schema
   * and annotations): what `toolpack.lock` pins with `hashToolDefinition`.
   */
  tools: Record<string, ToolDefinition[]>;
  /**
   * Per alias, why some of its tools could not be read (discovery's errors in that pack): a
   * pinned tool missing then was not seen, not removed, and no drift is reported for it.
   */
  unread?: Record<string, string[]>;
  /** Name collisions that involve a staged pack: what would make `mcp serve` refuse to start. */
  collisions: Diagnostic[];
}

/**
 * Lists the tools of staged packs as the server would serve them, next to everything the
 * project serves (its own sources, its other packs, the built-ins), with the staged packs in
 * place of the installed ones of the same aliases. The registry's VersionDoc cannot be
 * trusted for this (its publisher writes it, and a module may export other tools elsewhere),
 * so the caller discovers the unpacked content; packs cannot depend on discovery, so the CLI
 * passes this in.
 */
export type CheckStagedPacks = (staged: readonly StagedPackInfo[]) => Promise<StagedToolCheck>;

/** Throws `E_TOOL_COLLISION` listing every collision; `what` names what was being installed. */
export function assertNoCollisions(check: StagedToolCheck, what: string, hint: string): void {
  if (check.collisions.length === 0) return;
  throw new ToolpackError(
    'E_TOOL_COLLISION',
    `${what} would serve a tool name that another tool of the project has, so nothing was installed:\n${check.collisions.map((d) => `  - ${d.message}`).join('\n')}`,
    { hint },
  );
}
