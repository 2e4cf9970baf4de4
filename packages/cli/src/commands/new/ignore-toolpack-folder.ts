import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findOnPath } from '../../find-on-path.ts';

/** `.toolpack/`: the discovery cache and installed packs, rebuilt from toolpack.lock. */
const IGNORE_LINE = '.toolpack/';
/** Lines of a .gitignore that already keep `.toolpack/` (at the root or at any depth) out. */
const IGNORES_FOLDER = /^\/?\.toolpack\/?(\*\*?)?$/;

export interface GitIgnoreChange {
  /** The project's `.gitignore` (absolute). */
  file: string;
  /** `created` it, `added` the line to it, or found `.toolpack/` `ignored` already. */
  outcome: 'created' | 'added' | 'ignored' | 'not-written';
  reason?: string;
}

/**
 * Keeps `.toolpack/` out of git: a line in the project's `.gitignore` (created when there is
 * none), unless git, or that file, ignores it already: a repository's root `.gitignore`
 * listing it needs no second one in each project folder.
 */
export async function ignoreToolpackFolder(
  projectDir: string,
  env: NodeJS.ProcessEnv,
): Promise<GitIgnoreChange> {
  const file = path.join(projectDir, '.gitignore');
  if (isIgnoredByGit(projectDir, env)) return { file, outcome: 'ignored' };
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      return { file, outcome: 'not-written', reason: (error as Error).message };
  }
  if (text !== undefined && text.split(/\r?\n/).some((line) => IGNORES_FOLDER.test(line.trim())))
    return { file, outcome: 'ignored' };
  try {
    if (text === undefined) {
      await writeFile(
        file,
        `# Toolpack's cache and installed packs (mcp pack install restores them from toolpack.lock)\n${IGNORE_LINE}\n`,
        { flag: 'wx' },
      );
      return { file, outcome: 'created' };
    }
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    await writeFile(file, `${separator}${IGNORE_LINE}\n`, { flag: 'a' });
    return { file, outcome: 'added' };
  } catch (error) {
    return { file, outcome: 'not-written', reason: (error as Error).message };
  }
}

/** Whether git (any .gitignore up to the repository's root, or the user's excludes) ignores it. */
function isIgnoredByGit(projectDir: string, env: NodeJS.ProcessEnv): boolean {
  const git = findOnPath('git', env);
  if (git === undefined) return false;
  // Exit 0: ignored; 1: not; 128: not in a repository (the .gitignore alone decides).
  const result = spawnSync(git, ['check-ignore', '-q', IGNORE_LINE], {
    cwd: projectDir,
    env,
    stdio: 'ignore',
    timeout: 10_000,
  });
  return result.status === 0;
}
