import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { createPlainEnv, readJson, repoRoot } from './workspace-packages.ts';

/**
 * Toolpack's packages are ESM only (`"type": "module"`, `.mjs` files, no `require`
 * condition, Node >= 22.13). attw's `esm-only` profile checks every ESM resolution (node16
 * from ESM, bundler) and leaves out node10 and node16-from-CJS, which such a package does
 * not serve by design; `node16` and `strict` would report that choice as a problem.
 */
export const ATTW_PROFILE = 'esm-only';
const IGNORED_RESOLUTIONS = new Set(['node10', 'node16-cjs']);

export interface LintReport {
  /** publint --strict: every message is a problem (warnings count as errors). */
  publint: string[];
  /** attw problems in the resolutions the profile checks. */
  attw: string[];
}

async function runPublint(tarball: string): Promise<string[]> {
  const bytes = await readFile(tarball);
  const result = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    strict: true,
    level: 'suggestion',
  });
  return result.messages.map(
    (message) =>
      `${message.type} ${message.code}: ${formatMessage(message, result.pkg, { color: false }) ?? ''}`,
  );
}

interface AttwProblem {
  kind: string;
  entrypoint?: string;
  resolutionKind?: string;
}

function attwEntry(): string {
  const dir = path.join(repoRoot, 'node_modules', '@arethetypeswrong', 'cli');
  const manifest = readJson<{ bin: Record<string, string> }>(path.join(dir, 'package.json'));
  return path.join(dir, manifest.bin.attw ?? 'dist/index.js');
}

async function runAttw(tarball: string): Promise<string[]> {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [attwEntry(), '--profile', ATTW_PROFILE, '--format', 'json', tarball],
      { env: createPlainEnv(), timeout: 60_000, maxBuffer: 32 * 1024 * 1024 },
      // attw exits 1 when it finds problems; the JSON on stdout says which.
      (error, out, err) => {
        if (out.trim().startsWith('{')) resolve(out);
        else reject(new Error(`attw failed on ${tarball}: ${error?.message ?? ''}\n${err}`));
      },
    );
  });
  const report = JSON.parse(stdout) as { problems?: Record<string, AttwProblem[]> };
  return Object.values(report.problems ?? {})
    .flat()
    .filter((problem) => !IGNORED_RESOLUTIONS.has(problem.resolutionKind ?? ''))
    .map(
      (problem) =>
        `${problem.kind} at "${problem.entrypoint ?? '.'}" (${problem.resolutionKind ?? 'any'})`,
    );
}

/** publint (strict) and are-the-types-wrong on one packed tarball. */
export async function lintTarball(tarball: string): Promise<LintReport> {
  const [publintMessages, attwProblems] = await Promise.all([
    runPublint(tarball),
    runAttw(tarball),
  ]);
  return { publint: publintMessages, attw: attwProblems };
}
