import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { ToolpackError } from '@toolpack/core';
import type { SourceSpec } from '@toolpack/discovery';

export const PROJECT_FILE = 'toolpack.yaml';

const patterns = z.array(z.string().min(1)).optional();
const sourceOptions = {
  include: patterns,
  exclude: patterns,
  prefix: z.union([z.boolean(), z.string().regex(/^[A-Za-z0-9_-]{1,32}$/)]).optional(),
};
const sourceSchema = z.union([
  z.strictObject({ tools: z.string().min(1), ...sourceOptions }),
  z.strictObject({ scripts: z.string().min(1), ...sourceOptions }),
  z.strictObject({ module: z.string().min(1), ...sourceOptions }),
  z.strictObject({ workflows: z.string().min(1), ...sourceOptions }),
]);

/** The part of `toolpack.yaml` that says what to serve; packs add the rest of the manifest. */
const projectSchema = z.looseObject({
  sources: z.array(sourceSchema).default([]),
  include: patterns,
  exclude: patterns,
  maxTools: z.int().positive().optional(),
  strict: z.boolean().optional(),
  /** Extension -> argv prefix of the interpreter that runs it (`.bas: [basic, --run]`). */
  interpreters: z
    .record(
      z.string().regex(/^\.[A-Za-z0-9]+$/),
      z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    )
    .optional(),
});

export interface ProjectConfig {
  file: string;
  root: string;
  sources: SourceSpec[];
  include?: string[];
  exclude?: string[];
  maxTools?: number;
  strict?: boolean;
  interpreters?: Record<string, string[]>;
}

/** Reads `toolpack.yaml` in `dir`, or returns undefined when there is none. */
export async function readProjectConfig(dir: string): Promise<ProjectConfig | undefined> {
  const file = path.join(dir, PROJECT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ToolpackError(
      'E_MANIFEST',
      `Cannot read ${PROJECT_FILE}: ${(error as Error).message}`,
      { path: file, cause: error },
    );
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (document.errors.length > 0) {
    const first = document.errors[0];
    const line = first?.linePos?.[0]?.line;
    throw new ToolpackError(
      'E_MANIFEST',
      `${PROJECT_FILE} is not valid YAML: ${first?.message.split('\n')[0]}`,
      {
        path: file,
        ...(line === undefined ? {} : { line }),
        hint: 'Fix the YAML syntax at that line.',
      },
    );
  }
  const parsed = projectSchema.safeParse(document.toJS() ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new ToolpackError('E_MANIFEST', `${PROJECT_FILE} has problems: ${problems.join('; ')}.`, {
      path: file,
      hint: 'Each source is one of `tools: DIR`, `scripts: DIR`, `module: PATH` or `workflows: DIR`.',
    });
  }
  const config: ProjectConfig = { file, root: dir, sources: parsed.data.sources };
  if (parsed.data.include) config.include = parsed.data.include;
  if (parsed.data.exclude) config.exclude = parsed.data.exclude;
  if (parsed.data.maxTools !== undefined) config.maxTools = parsed.data.maxTools;
  if (parsed.data.strict !== undefined) config.strict = parsed.data.strict;
  if (parsed.data.interpreters !== undefined) {
    config.interpreters = Object.fromEntries(
      Object.entries(parsed.data.interpreters).map(([extension, argv]) => [
        extension.toLowerCase(),
        typeof argv === 'string' ? [argv] : argv,
      ]),
    );
  }
  return config;
}
