import { Command } from 'commander';
import { EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { routeCommandOutput } from '../../route-command-output.ts';
import { scaffoldPack, scaffoldTool } from './index.ts';
import { TOOL_KINDS, TOOL_LANGS, type ToolKind, type ToolLang } from './plan-tool.ts';
import { showPath } from './show-path.ts';

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

function kindLabel(kind: ToolKind, lang: ToolLang | undefined): string {
  const label: Record<ToolKind, string> = {
    folder: 'tool folder',
    script: 'script',
    module: 'module',
    basic: 'BASIC script',
  };
  return lang === undefined ? label[kind] : `${LANG_NAMES[lang]} ${label[kind]}`;
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
  command.action(async (name: string, flags: NewToolFlags) => {
    const created = await scaffoldTool({
      cwd: io.cwd,
      env: io.env,
      name,
      ...(flags.kind === undefined ? {} : { kind: flags.kind }),
      ...(flags.lang === undefined ? {} : { lang: flags.lang }),
      ...(flags.description === undefined ? {} : { description: flags.description }),
    });
    reportCreated(io, {
      json: flags.json ? created : undefined,
      heading: (paint) =>
        `Created the ${kindLabel(created.kind, created.lang ?? undefined)} ${paint('bold', created.tool)}:`,
      files: created.files,
      next: created.next,
      notes: created.notes,
    });
    done(EXIT_OK);
  });
  return command;
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
  command.action(async (name: string, flags: NewPackFlags) => {
    const created = await scaffoldPack({
      cwd: io.cwd,
      env: io.env,
      name,
      tool: flags.tool,
      ...(flags.kind === undefined ? {} : { kind: flags.kind }),
      ...(flags.lang === undefined ? {} : { lang: flags.lang }),
      ...(flags.description === undefined ? {} : { description: flags.description }),
    });
    const { firstTool, ...json } = created;
    reportCreated(io, {
      json: flags.json ? json : undefined,
      heading: (paint) =>
        `Created the pack ${paint('bold', created.pack)} (0.1.0) with the ${kindLabel(firstTool.kind, firstTool.lang)} ${created.tool}, served as ${created.servedAs} where the pack is added:`,
      files: created.files,
      next: created.next,
      notes: created.notes,
    });
    done(EXIT_OK);
  });
  return command;
}

/** What `mcp new` prints once the files are written: JSON with --json, else a short list. */
function reportCreated(
  io: CliIo,
  report: {
    json: object | undefined;
    heading: (paint: ReturnType<typeof createPainter>) => string;
    files: readonly string[];
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
    ...report.files.map((file) => `  ${paint('green', showPath(file))}`),
    '',
    'Next:',
    ...report.next.map((line) => `  ${line}`),
    ...(report.notes.length === 0
      ? []
      : ['', ...report.notes.map((note) => paint('yellow', note))]),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
}
