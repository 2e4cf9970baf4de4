import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import type { CliIo } from '../../../io.ts';
import { TOOL_KINDS, TOOL_LANGS } from '../plan-tool.ts';
import { kindLabel, reportCreated } from '../render-created.ts';
import { scaffoldTool } from './index.ts';

interface NewToolFlags {
  kind?: string;
  lang?: string;
  description?: string;
  json?: boolean;
}

export function createNewToolCommand(io: CliIo, done: (code: number) => void): Command {
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
    .option(
      '--json',
      'print {"tool", "kind", "lang", "files", "source", "next", "registered", "gitignore", "notes"}',
    );
  command.addHelpText(
    'after',
    `
Kinds (--kind) and their languages (--lang):
  folder  ps1|sh|py|js|ts  DIR/<kebab-name>/: metadata.yaml, script.<ext>, a test (dotbot)
  script  ps1|sh|py|js|ts  DIR/<name>.<ext>: comment-based help (ps1) or PARAM lines, a test
  module  ps1|js|ts        DIR/<PascalName>.psm1, or DIR/<kebab-name>.mjs|.ts with defineTool, a test
  basic   (no --lang)      DIR/<name>.bas with PARAM/DESCRIPTION lines

--dir DIR (the global option, also -C DIR) is the folder the tool goes into; the default is
the current folder. Existing files are never overwritten. The tool joins the project: the
nearest toolpack.yaml from DIR up to the current folder gets its source under sources:
(comments and layout kept; nothing when a source there already serves it), or toolpack.yaml
is created in the current folder; .gitignore gets .toolpack/ (the cache and installed packs)
unless git ignores it already. Names follow each convention:
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
    const { changes, ...json } = created;
    reportCreated(io, {
      json: flags.json ? json : undefined,
      heading: (paint) =>
        `Created the ${kindLabel(created.kind, created.lang ?? undefined)} ${paint('bold', created.tool)}:`,
      files: created.files,
      changes,
      next: created.next,
      notes: created.notes,
    });
    done(EXIT_OK);
  });
  return command;
}
