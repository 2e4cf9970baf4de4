import { existsSync } from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../../find-on-path.ts';
import type { ToolPlan } from './plan-tool.ts';

/** Lines saying what the machine still lacks to run (or load) the tool. */
export function describeNeeds(plan: ToolPlan, env: NodeJS.ProcessEnv): string[] {
  const notes: string[] = [];
  for (const need of plan.needs) {
    if (need === 'pwsh' && findOnPath('pwsh', env) === undefined) {
      notes.push(
        'Running it needs PowerShell 7 (pwsh), which is not on PATH; mcp check works without it (mcp test skips it).',
      );
    } else if ((need === 'python3' || need === 'bash') && findOnPath(need, env) === undefined) {
      notes.push(`Running it needs ${need}, which is not on PATH.`);
    } else if (need === 'toolpack-core' && !hasPackagesNear(path.dirname(plan.source.path))) {
      notes.push(
        'The module imports @toolpack/core and zod, not installed next to it. @toolpack/core is not on the npm registry yet: ' +
          'run `pnpm pack-tarballs` in a Toolpack clone, then here `npm install zod <clone>/dist-tarballs/toolpack-core-<version>.tgz`.',
      );
    } else if (need === 'basic-interpreter') {
      notes.push(
        'Calling it needs a BASIC interpreter: add interpreters: { .bas: [your-basic, --run] } to toolpack.yaml (until then mcp test skips it).',
      );
    }
  }
  return notes;
}

function hasPackagesNear(dir: string): boolean {
  for (let current = dir; ; current = path.dirname(current)) {
    const modules = path.join(current, 'node_modules');
    if (
      existsSync(path.join(modules, '@toolpack', 'core')) &&
      existsSync(path.join(modules, 'zod'))
    )
      return true;
    if (path.dirname(current) === current) return false;
  }
}
