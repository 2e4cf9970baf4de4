import { existsSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { ToolpackError, toKebabCase } from '@toolpack/core';
import { defaultAlias, isValidPackName, toServedToolName } from '@toolpack/packs';
import { EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { routeCommandOutput } from '../../route-command-output.ts';
import {
  TOOL_KINDS,
  TOOL_LANGS,
  checkCombination,
  planTool,
  type PlannedSource,
  type ToolKind,
  type ToolLang,
  type ToolPlan,
} from './plan-tool.ts';
import { renderPackManifest, renderPackReadme } from './pack-templates.ts';
import { toOneLine } from './templates.ts';
import { deriveToolNames, type ToolNames } from './tool-names.ts';
import { findExistingPaths, writeNewFiles, type NewFile } from './write-new-files.ts';
import { findOnPath } from '../tool-tests/find-on-path.ts';

interface NewToolFlags {
  kind?: string;
  lang?: string;
  description?: string;
  json?: boolean;
}

interface NewPackFlags extends NewToolFlags {
  tool: string;
}

const LANG_NAMES: Record<ToolLang, string> = {
  ps1: 'PowerShell',
  sh: 'bash',
  py: 'Python',
  js: 'JavaScript',
  ts: 'TypeScript',
};

/**
 * Paths as the user's shell sees them. `-C/--dir` moves `io.cwd` (where the files go), but
 * the commands we print are typed where `mcp` was started.
 */
function showPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  const shown =
    relative === ''
      ? '.'
      : relative.startsWith('..') || path.isAbsolute(relative)
        ? file
        : relative;
  return quoteForShell(shown.split(path.sep).join('/'));
}

function quoteForShell(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
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

function kindLabel(kind: ToolKind, lang: ToolLang | undefined): string {
  const label: Record<ToolKind, string> = {
    folder: 'tool folder',
    script: 'script',
    module: 'module',
    basic: 'BASIC script',
  };
  return lang === undefined ? label[kind] : `${LANG_NAMES[lang]} ${label[kind]}`;
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

export function createNewCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('new').description(
    'Create a tool or a pack from a template that mcp check accepts and whose test passes',
  );
  for (const make of [createNewToolCommand, createNewPackCommand]) {
    command.addCommand(routeCommandOutput(make(io, done), io));
  }
  command.addHelpText(
    'after',
    `
Examples:
  mcp new tool send-notification --kind folder --lang ps1 --dir systems/mcp/tools
  mcp new tool Get-DiskUsage --kind script --lang ps1 --dir scripts
  mcp new pack weather`,
  );
  return command;
}

function createNewToolCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('tool')
    .description('Create one tool (with a test) in the current folder or --dir')
    .argument(
      '<name>',
      'what the tool does, in any case: send-notification, SendNotification, send_notification',
    )
    .option('--kind <kind>', `how the tool is written: ${TOOL_KINDS.join(', ')}`)
    .option('--lang <lang>', `its language: ${TOOL_LANGS.join(', ')} (none for basic)`)
    .option(
      '--description <text>',
      'one sentence saying what the tool does (clients show it to the model)',
    )
    .option('--json', 'print {"tool", "kind", "lang", "files", "source", "next"}');
  command.addHelpText(
    'after',
    `
Kinds (--kind) and their languages (--lang):
  folder  ps1|sh|py|js|ts  DIR/<kebab-name>/: metadata.yaml, script.<ext>, a test (dotbot)
  script  ps1|sh|py|js|ts  DIR/<name>.<ext>: comment-based help (ps1) or PARAM lines, a test
  module  ps1|js|ts        DIR/<PascalName>.psm1, or DIR/<kebab-name>.mjs|.ts with defineTool, a test
  basic   (no --lang)      DIR/<name>.bas with PARAM/DESCRIPTION lines

--dir DIR (the global option, also -C DIR) is the folder the tool goes into; the default is
the current folder. Existing files are never overwritten. Names follow each convention:
send-notification gives the folder send-notification/, the tool send_notification and the
function Invoke-SendNotification; a PowerShell script or module function is Send-Notification.

Examples:
  mcp new tool send-notification --kind folder --lang ps1 --dir systems/mcp/tools
  mcp new tool word-count --kind script --lang py --dir scripts --description "Counts the words of a text."
  mcp new tool add-numbers --kind module --lang ts
  mcp new tool book-meeting --kind basic --dir scripts

Exit codes: 0 created, 1 the files could not be written, 2 bad flags, an invalid name, a
combination that does not exist, or a file that already exists.`,
  );
  command.action(async (rawName: string, flags: NewToolFlags) => {
    const { kind, lang } = checkCombination(flags.kind, flags.lang);
    const names = deriveToolNames(rawName);
    const dir = io.cwd;
    const plan = planTool({
      names,
      kind,
      lang,
      dir,
      description: readDescription(flags.description, defaultToolDescription(names, lang)),
      runTestWith: (source) => sourceCommand('test', source),
    });
    await refuseExisting(plan.files, kind === 'folder' ? [path.join(dir, names.kebab)] : []);
    await writeNewFiles(plan.files);

    const next = [
      sourceCommand('check', plan.source),
      sourceCommand('test', plan.source),
      `mcp call ${plan.toolName} ${plan.sampleArg} ${plan.source.flag} ${showPath(plan.source.path)}`,
    ];
    const notes = describeNeeds(plan, io.env);
    reportCreated(io, {
      json: flags.json
        ? {
            tool: plan.toolName,
            kind,
            lang: lang ?? null,
            files: plan.files.map((file) => file.path),
            source: { [plan.source.key]: plan.source.path },
            next,
            notes,
          }
        : undefined,
      heading: (paint) => `Created the ${kindLabel(kind, lang)} ${paint('bold', plan.toolName)}:`,
      files: plan.files,
      next,
      notes,
    });
    done(EXIT_OK);
  });
  return command;
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

function createNewPackCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('pack')
    .description('Create a pack folder: toolpack.yaml, one tool with its test, and a README')
    .argument(
      '<name>',
      'the pack name: lowercase letters, digits and hyphens, optionally owner/name',
    )
    .option('--kind <kind>', `how its first tool is written: ${TOOL_KINDS.join(', ')}`, 'script')
    .option('--lang <lang>', `the first tool's language: ${TOOL_LANGS.join(', ')} (default js)`)
    .option('--tool <name>', 'the first tool’s name', 'hello')
    .option('--description <text>', 'one sentence saying what the pack is for')
    .option('--json', 'print {"pack", "dir", "tool", "files", "next"}');
  command.addHelpText(
    'after',
    `
Creates NAME/ in the current folder (or --dir DIR): toolpack.yaml (name, version 0.1.0,
description, tags [MCPTools], sources), the first tool with its test, and README.md. The
first tool is a JavaScript script by default, which runs wherever Toolpack does; --kind and
--lang pick another (the same combinations as mcp new tool).

Examples:
  mcp new pack weather
  mcp new pack acme/weather --description "Weather forecasts and alerts."
  mcp new pack disk-tools --kind script --lang ps1 --tool get-disk-usage

Exit codes: 0 created, 1 the files could not be written, 2 bad flags, an invalid name, or a
folder that already exists and is not empty.`,
  );
  command.action(async (rawName: string, flags: NewPackFlags) => {
    const packName = readPackName(rawName);
    const requestedKind = flags.kind ?? 'script';
    const { kind, lang } = checkCombination(
      requestedKind,
      flags.lang ?? (requestedKind === 'basic' ? undefined : 'js'),
    );
    const names = deriveToolNames(flags.tool);
    const alias = defaultAlias(packName);
    const packDir = path.join(io.cwd, alias);
    const packDescription = readDescription(
      flags.description,
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
    const notes = describeNeeds(plan, io.env);
    reportCreated(io, {
      json: flags.json
        ? {
            pack: packName,
            dir: packDir,
            tool: plan.toolName,
            servedAs: served,
            files: files.map((file) => file.path),
            next,
            notes,
          }
        : undefined,
      heading: (paint) =>
        `Created the pack ${paint('bold', packName)} (0.1.0) with the ${kindLabel(kind, lang)} ${plan.toolName}, served as ${served} where the pack is added:`,
      files,
      next,
      notes,
    });
    done(EXIT_OK);
  });
  return command;
}

/** What `mcp new` prints once the files are written: JSON with --json, else a short list. */
function reportCreated(
  io: CliIo,
  report: {
    json: Record<string, unknown> | undefined;
    heading: (paint: ReturnType<typeof createPainter>) => string;
    files: readonly NewFile[];
    next: readonly string[];
    notes: readonly string[];
  },
): void {
  if (report.json !== undefined) {
    io.stdout.write(`${JSON.stringify(report.json, null, 2)}\n`);
    return;
  }
  const paint = createPainter(io.stdout, io.env);
  const lines = [
    report.heading(paint),
    ...report.files.map((file) => `  ${paint('green', showPath(file.path))}`),
    '',
    'Next:',
    ...report.next.map((line) => `  ${line}`),
    ...(report.notes.length === 0
      ? []
      : ['', ...report.notes.map((note) => paint('yellow', note))]),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
}
