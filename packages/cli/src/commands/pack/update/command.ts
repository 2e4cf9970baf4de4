import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { withDownloadProgress } from '../download-progress.ts';
import { addApprovalOptions, createCommandApprover } from '../approval-options.ts';
import { addRegistryOption } from '../registry-option.ts';
import { updateProjectPacks } from './index.ts';

export function createUpdateCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('update')
    .description('Move packs to the highest version their toolpack.yaml range allows')
    .argument('[names...]', 'aliases or names (default: every pack)');
  addRegistryOption(command);
  addApprovalOptions(command);
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack update                           # every pack, within its range
  mcp pack update jira

To move past a range, add the pack again with a new one: mcp pack add jira@^2.0.0

A new version that asks for more than you approved (files, network, environment, programs)
or whose tools are new or changed stops and shows the difference: approve it on a terminal,
or pass --yes or --allow <grants>. Asking for less is recorded without asking.

Exit codes: 0 updated or already current, 1 an update failed or was not approved (nothing
changed), 2 bad input or no one to ask (no terminal, no --yes or --allow).`,
  );
  command.action(
    async (names: string[], flags: { registry?: string; yes?: boolean; allow?: string }) => {
      const approve = createCommandApprover(io, flags);
      const report = await withDownloadProgress(io, (onDownload) =>
        updateProjectPacks({
          cwd: io.cwd,
          env: io.env,
          names,
          ...(flags.registry === undefined ? {} : { registry: flags.registry }),
          onDownload,
          ...(approve === undefined ? {} : { approve }),
        }),
      );
      const paint = createPainter(io.stdout, io.env);
      for (const u of report.updated) {
        io.stdout.write(
          `${paint('green', 'updated')} ${u.alias} ${u.from ?? '(none)'} -> ${u.to}\n`,
        );
        if (
          !u.asked &&
          u.review.approved !== undefined &&
          u.review.widening.length === 0 &&
          JSON.stringify(u.review.approved) !== JSON.stringify(u.review.permissions)
        )
          io.stdout.write(`  ${u.alias} now asks for less; recorded in toolpack.lock\n`);
        if (u.deprecated !== undefined)
          io.stderr.write(`warning ${u.name}@${u.to} is deprecated: ${u.deprecated}\n`);
      }
      for (const c of report.current) io.stdout.write(`${c.alias} is up to date (${c.version})\n`);
      if (report.updated.length === 0 && report.current.length === 0)
        io.stdout.write('No packs in toolpack.yaml.\n');
      done(EXIT_OK);
    },
  );
  return command;
}
