import { existsSync } from 'node:fs';
import path from 'node:path';
import { ToolpackError, toKebabCase } from '@toolpack/core';
import { defaultAlias, isValidPackName, toServedToolName } from '@toolpack/packs';
import type { CommandContext } from '../../io.ts';
import {
  checkCombination,
  planTool,
  type PlannedSource,
  type ToolKind,
  type ToolLang,
  type ToolPlan,
} from './plan-tool.ts';
import { renderPackManifest, renderPackReadme } from './pack-templates.ts';
import { showPath } from './show-path.ts';
import { toOneLine } from './templates.ts';
import { deriveToolNames, type ToolNames } from './tool-names.ts';
import { findExistingPaths, writeNewFiles, type NewFile } from './write-new-files.ts';
import { findOnPath } from '../tool-tests/find-on-path.ts';

export interface ScaffoldToolOptions extends CommandContext {
  /** What the tool does, in any case: send-notification, SendNotification, send_notification. */
  name: string;
  kind?: string;
  lang?: string;
  description?: string;
}

/** What `mcp new tool --json` prints. */
export interface ScaffoldedTool {
  tool: string;
  kind: ToolKind;
  lang: ToolLang | null;
  files: string[];
  /** The `toolpack.yaml` source that serves the tool: `{ scripts: DIR }` and the like. */
  source: Record<string, string>;
  /** Commands to run next, as typed where `mcp` was started. */
  next: string[];
  /** What this machine still lacks to run the tool. */
  notes: string[];
}

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
  notes: string[];
  firstTool: { kind: ToolKind; lang: ToolLang | undefined };
}

function defaultToolDescription(names: ToolNames, lang: ToolLang | undefined): string {
  // The bash template cannot count without jq or python: it echoes its arguments instead.
  const does =
    lang === 'sh'
      ? 'Echoes the arguments it is given'
      : 'Returns the text it is given and its length';
  return `${does}; say here in one sentence what ${names.snake} does.`;
}

function readDescription(value: string | undefined, fallback: string): string {
  const description = toOneLine(value ?? fallback);
  if (description === '') {
    throw new ToolpackError('E_USAGE', '--description is empty.', {
      hint: 'Say in one sentence what the tool does: the model chooses tools by their descriptions.',
    });
  }
  return description;
}

/** Lines saying what the machine still lacks to run (or load) the tool. */
function describeNeeds(plan: ToolPlan, env: NodeJS.ProcessEnv): string[] {
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

async function refuseExisting(
  files: readonly NewFile[],
  folders: readonly string[],
): Promise<void> {
  const existing = await findExistingPaths(files, folders);
  const first = existing[0];
  if (first === undefined) return;
  const isFolder = folders.includes(first);
  throw new ToolpackError(
    'E_USAGE',
    isFolder
      ? `${showPath(first)} already exists and is not empty: mcp new never overwrites files.`
      : `${showPath(first)} already exists: mcp new never overwrites files.`,
    { hint: 'Pick another name, or another folder with --dir.' },
  );
}

function sourceCommand(verb: string, source: PlannedSource): string {
  return `mcp ${verb} ${source.flag} ${showPath(source.path)}`;
}

/** Writes one tool (with a test) from a template that `mcp check` accepts; never overwrites. */
export async function scaffoldTool(options: ScaffoldToolOptions): Promise<ScaffoldedTool> {
  const { kind, lang } = checkCombination(options.kind, options.lang);
  const names = deriveToolNames(options.name);
  const dir = options.cwd;
  const plan = planTool({
    names,
    kind,
    lang,
    dir,
    description: readDescription(options.description, defaultToolDescription(names, lang)),
    runTestWith: (source) => sourceCommand('test', source),
  });
  await refuseExisting(plan.files, kind === 'folder' ? [path.join(dir, names.kebab)] : []);
  await writeNewFiles(plan.files);

  const next = [
    sourceCommand('check', plan.source),
    sourceCommand('test', plan.source),
    `mcp call ${plan.toolName} ${plan.sampleArg} ${plan.source.flag} ${showPath(plan.source.path)}`,
  ];
  const notes = describeNeeds(plan, options.env);
  return {
    tool: plan.toolName,
    kind,
    lang: lang ?? null,
    files: plan.files.map((file) => file.path),
    source: { [plan.source.key]: plan.source.path },
    next,
    notes,
  };
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
  const notes = describeNeeds(plan, options.env);
  return {
    pack: packName,
    dir: packDir,
    tool: plan.toolName,
    servedAs: served,
    files: files.map((file) => file.path),
    next,
    notes,
    firstTool: { kind, lang },
  };
}
