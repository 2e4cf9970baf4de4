import path from 'node:path';
import { ToolpackError, type Diagnostic } from '@toolpack/core';
import { createPackTarball, type PackTarball } from '@toolpack/packs';
import { discoverPackTools } from './discover-pack-tools.ts';

export interface BuiltPack {
  tarball: PackTarball & {
    tarball: Buffer;
    integrity: string;
    manifest: NonNullable<PackTarball['manifest']>;
  };
  /** The tools the pack serves, as discovery finds them inside it (no alias yet). */
  tools: string[];
}

export interface BuildPackResult {
  /** Every problem of the pack and of its tools (infos left out). */
  diagnostics: Diagnostic[];
  /** Undefined when a diagnostic is an error: a pack whose tools would be refused is not worth sharing. */
  built?: BuiltPack;
}

/** Packs `dir` (what `mcp pack pack` and `mcp pack publish` share) and lists its tools. */
export async function buildPack(dir: string): Promise<BuildPackResult> {
  const packed = await createPackTarball({ dir });
  const diagnostics: Diagnostic[] = [...packed.diagnostics];
  let tools: string[] = [];
  if (packed.manifest !== undefined) {
    try {
      const discovered = await discoverPackTools(dir, packed.manifest);
      tools = discovered.tools.map((tool) => tool.name);
      diagnostics.push(...discovered.diagnostics.filter((d) => d.severity !== 'info'));
      if (
        discovered.tools.length === 0 &&
        !discovered.diagnostics.some((d) => d.severity === 'error')
      ) {
        diagnostics.push({
          severity: 'error',
          code: 'E_PACK_NO_TOOLS',
          message: 'The pack serves no tools.',
          path: path.join(dir, 'toolpack.yaml'),
          hint: 'Check its sources: with mcp list in the pack folder.',
        });
      }
    } catch (error) {
      if (!(error instanceof ToolpackError)) throw error;
      diagnostics.push({
        severity: 'error',
        code: error.code,
        message: error.message,
        path: path.join(dir, 'toolpack.yaml'),
        ...(error.hint === undefined ? {} : { hint: error.hint }),
      });
    }
  }
  if (packed.tarball === undefined || diagnostics.some((d) => d.severity === 'error'))
    return { diagnostics };
  return { diagnostics, built: { tarball: packed as BuiltPack['tarball'], tools } };
}
