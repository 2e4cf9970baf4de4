import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import type { CliIo } from '../../../io.ts';
import { TOOL_KINDS, TOOL_LANGS } from '../plan-tool.ts';
import { kindLabel, reportCreated } from '../render-created.ts';
import { scaffoldPack } from './index.ts';

interface NewPackFlags {
  kind?: string;
  lang?: string;
  description?: string;
  json?: boolean;
  tool: string;
}

export function createNewPackCommand(io: CliIo, done: (code: number) => void): Command {
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
    .option(
      '--json',
      'print {"pack", "dir", "tool", "servedAs", "files", "next", "gitignore", "notes"}',
    );
  command.addHelpText(
    'after',
    `
Creates NAME/ in the current folder (or --dir DIR): toolpack.yaml (name, version 0.1.0,
description, tags [MCPTools], sources), the first tool with its test, and README.md, and
adds .toolpack/ (where mcp test caches) to NAME/.gitignore unless git ignores it already. The
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
    const { firstTool, changes, ...json } = created;
    reportCreated(io, {
      json: flags.json ? json : undefined,
      heading: (paint) =>
        `Created the pack ${paint('bold', created.pack)} (0.1.0) with the ${kindLabel(firstTool.kind, firstTool.lang)} ${created.tool}, served as ${created.servedAs} where the pack is added:`,
      files: created.files,
      changes,
      next: created.next,
      notes: created.notes,
    });
    done(EXIT_OK);
  });
  return command;
}
