import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import { toServedToolName } from '../names/pack-names.ts';
import type { ToolDefinition } from '../pins/tool-hash.ts';
import type { CheckStagedPacks } from '../project/staged-tools.ts';
import { describeScriptTools } from './describe-script-tools.ts';

/**
 * A stand-in for the CLI's check in this package's own tests: reads each staged pack's
 * `scripts:` files (its unpacked content, not the registry's VersionDoc) and reports a
 * collision with `projectTools` or with another staged pack.
 */
export function checkScriptTools(projectTools: Iterable<string>): CheckStagedPacks {
  return async (staged) => {
    const taken = new Map<string, string>([...projectTools].map((name) => [name, 'the project']));
    const tools: Record<string, ToolDefinition[]> = {};
    const collisions: Diagnostic[] = [];
    for (const pack of staged) {
      const served = (await describeScriptTools(pack.dir, pack.manifest)).map((tool) => ({
        ...tool,
        name: toServedToolName(pack.alias, tool.name),
      }));
      tools[pack.alias] = served;
      for (const { name } of served) {
        const owner = taken.get(name);
        if (owner !== undefined) {
          collisions.push(
            createDiagnostic(
              'error',
              'E_PACK_COLLISION',
              `Two tools are named ${name}: the pack ${pack.alias} and ${owner}.`,
              { path: pack.dir },
            ),
          );
        }
        taken.set(name, `the pack ${pack.alias}`);
      }
    }
    return { tools, collisions };
  };
}
