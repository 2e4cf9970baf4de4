import path from 'node:path';
import { ToolpackError, toKebabCase } from '@toolpack/core';
import { defaultAlias, isValidPackName, toServedToolName } from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { describeNeeds } from '../describe-needs.ts';
import { describeGitIgnore } from '../describe-registration.ts';
import { ignoreToolpackFolder, type GitIgnoreChange } from '../ignore-toolpack-folder.ts';
import { renderPackManifest, renderPackReadme } from '../pack-templates.ts';
import { checkCombination, planTool, type ToolKind, type ToolLang } from '../plan-tool.ts';
import { refuseExisting } from '../refuse-existing.ts';
import { showPath } from '../show-path.ts';
import { defaultToolDescription, readDescription } from '../tool-description.ts';
import { deriveToolNames } from '../tool-names.ts';
import { writeNewFiles, type NewFile } from '../write-new-files.ts';

export interface ScaffoldPackOptions extends CommandContext {
  /** The pack name: lowercase letters, digits and hyphens, optionally owner/name. */
  name: string;
  /** The first tool's kind and language (default: a JavaScript script). */
  kind?: string;
  lang?: string;
  /** The first tool's name. */
  tool: string;
  /** What the pack is for. */
  description?: string;
}

/** What `mcp new pack --json` prints, and how its first tool is written. */
export interface ScaffoldedPack {
  pack: string;
  dir: string;
  tool: string;
  servedAs: string;
  files: string[];
  next: string[];
  /** How `.toolpack/` (where `mcp test` caches) is kept out of the pack folder's git. */
  gitignore: GitIgnoreChange;
  /** What else was changed, for the report. */
  changes: string[];
  notes: string[];
  firstTool: { kind: ToolKind; lang: ToolLang | undefined };
}

const PACK_SOURCE_DIR: Record<ToolKind, string> = {
  folder: 'tools',
  script: 'scripts',
  module: 'src',
  basic: 'scripts',
};

function readPackName(raw: string): string {
  const name = raw
    .split('/')
    .map((segment) => toKebabCase(segment))
    .join('/');
  if (!isValidPackName(name)) {
    throw new ToolpackError('E_USAGE', `${JSON.stringify(raw)} cannot be a pack name.`, {
      hint: 'Use lowercase letters, digits and hyphens (at most 64), optionally owner/name: weather or acme/weather.',
    });
  }
  return name;
}

/** Writes a pack folder: `toolpack.yaml`, one tool with its test, and a README; never overwrites. */
export async function scaffoldPack(options: ScaffoldPackOptions): Promise<ScaffoldedPack> {
  const packName = readPackName(options.name);
  const requestedKind = options.kind ?? 'script';
  const { kind, lang } = checkCombination(
    requestedKind,
    options.lang ?? (requestedKind === 'basic' ? undefined : 'js'),
  );
  const names = deriveToolNames(options.tool);
  const alias = defaultAlias(packName);
  const packDir = path.join(options.cwd, alias);
  const packDescription = readDescription(
    options.description,
    `The ${alias} pack of MCP tools; say here in one sentence what they are for.`,
  );
  const toolDescription = defaultToolDescription(names, lang);
  const plan = planTool({
    names,
    kind,
    lang,
    dir: path.join(packDir, PACK_SOURCE_DIR[kind]),
    description: toolDescription,
    runTestWith: () => 'mcp test (in the pack folder)',
  });
  const sourcePath = path.relative(packDir, plan.source.path).split(path.sep).join('/');
  const served = toServedToolName(alias, plan.toolName);
  const files: NewFile[] = [
    {
      path: path.join(packDir, 'toolpack.yaml'),
      content: renderPackManifest({
        name: packName,
        description: packDescription,
        source: { key: plan.source.key, path: sourcePath },
        basic: kind === 'basic',
      }),
    },
    ...plan.files,
    {
      path: path.join(packDir, 'README.md'),
      content: renderPackReadme({
        name: packName,
        description: packDescription,
        tools: [{ name: served, description: toolDescription }],
        servedPrefix: toServedToolName(alias, 'x').slice(0, -1),
        source: { key: plan.source.key, path: sourcePath },
      }),
    },
  ];
  await refuseExisting(files, [packDir]);
  await writeNewFiles(files);

  const shownDir = showPath(packDir);
  const next = [`cd ${shownDir}`, 'mcp check', 'mcp test', 'mcp pack pack .'];
  const ignored = await ignoreToolpackFolder(packDir, options.env);
  const described = describeGitIgnore(ignored);
  const notes = [...describeNeeds(plan, options.env), ...described.notes];
  return {
    pack: packName,
    dir: packDir,
    tool: plan.toolName,
    servedAs: served,
    files: files.map((file) => file.path),
    next,
    gitignore: ignored,
    changes: described.changes,
    notes,
    firstTool: { kind, lang },
  };
}
