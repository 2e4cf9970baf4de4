import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import { createReadDiagnostic } from '../../read-error.ts';
import type { ParseCache, SourceResult } from '../../types.ts';
import { describeWorkflow } from './describe-workflow.ts';

export interface DiscoverWorkflowsOptions {
  /** The workflows folder, absolute or relative to `cwd`. */
  dir: string;
  cwd: string;
  cache?: ParseCache;
}

/** Bump when `describeWorkflow`'s output changes, so cached results are not served. */
export const WORKFLOW_PARSER = 'workflow@1';

/**
 * docs/workflows.md: every `*.yaml` / `*.yml` directly in `dir` is a workflow (see
 * `describeWorkflow`). A folder that does not exist throws `E_SOURCE_MISSING`; a file that
 * cannot be read is a diagnostic and the others still load.
 */
export async function discoverWorkflows(options: DiscoverWorkflowsOptions): Promise<SourceResult> {
  const dir = path.resolve(options.cwd, options.dir);
  const entries = await readdir(dir, { withFileTypes: true }).catch(
    (cause: NodeJS.ErrnoException) => {
      throw new ToolpackError(
        'E_SOURCE_MISSING',
        cause.code === 'ENOTDIR'
          ? `The workflows source ${options.dir} is not a folder.`
          : `The workflows folder ${options.dir} does not exist (looked in ${dir}).`,
        {
          cause,
          path: dir,
          hint: 'Point `workflows:` (or --workflows) at a folder of <name>.yaml files.',
        },
      );
    },
  );
  const files = entries
    .filter(
      (entry) =>
        (entry.isFile() || entry.isSymbolicLink()) &&
        /\.ya?ml$/i.test(entry.name) &&
        !entry.name.startsWith('.'),
    )
    .map((entry) => path.join(dir, entry.name))
    .sort();
  const results = await Promise.all(
    files.map(async (file): Promise<SourceResult> => {
      const describe = (contents: string[]) =>
        describeWorkflow({ path: file, content: contents[0] ?? '' });
      try {
        return options.cache === undefined
          ? describe([await readFile(file, 'utf8')])
          : await options.cache.read(WORKFLOW_PARSER, [file], describe);
      } catch (error) {
        return {
          tools: [],
          diagnostics: [createReadDiagnostic(file, error)],
        };
      }
    }),
  );
  return {
    tools: results.flatMap((r) => r.tools),
    diagnostics: results.flatMap((r) => r.diagnostics),
  };
}
