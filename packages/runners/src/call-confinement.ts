import { delimiter, isAbsolute, resolve } from 'node:path';
import { buildToolEnvironment } from '@toolpack/containment';
import type { DiscoveredTool } from '@toolpack/core';
import type { CallConfinement } from './runner-types.ts';

export interface ConfinementResolverOptions {
  projectRoot: string;
  /** What unconfined tools get: the project-wide allow-list applied. */
  unconfinedEnvironment: Readonly<Record<string, string>>;
  /** Values set for every tool (the runner's `env` option). */
  values?: Readonly<Record<string, string>>;
}

/**
 * Gives each tool what it runs with. A confined tool's environment holds the defaults and
 * the names its own pack declared, never the project-wide allow-list (which names every
 * pack's variables): built once per sandbox. This holds where the OS sandbox cannot be had too.
 */
export function createConfinementResolver(
  options: ConfinementResolverOptions,
): (tool: DiscoveredTool) => CallConfinement {
  const unconfined: CallConfinement = { key: '', environment: options.unconfinedEnvironment };
  const confined = new Map<string, CallConfinement>();
  return (tool) => {
    const sandbox = tool.source.sandbox;
    if (sandbox === undefined) return unconfined;
    const root = isAbsolute(sandbox.root)
      ? sandbox.root
      : resolve(options.projectRoot, sandbox.root);
    const key = JSON.stringify([root, sandbox.permissions]);
    let found = confined.get(key);
    if (found === undefined) {
      const environment = buildToolEnvironment({
        source: process.env,
        allowList: sandbox.permissions.env,
        ...(options.values === undefined ? {} : { values: options.values }),
      });
      found = {
        key,
        sandbox,
        // The confined folder first on PSModulePath: a pack installed from a NuGet feed keeps
        // its module's RequiredModules beside it, each in its own folder, where pwsh finds them.
        environment: {
          ...environment,
          PSModulePath: [root, environment.PSModulePath].filter(Boolean).join(delimiter),
        },
      };
      confined.set(key, found);
    }
    return found;
  };
}
