import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { displayPath } from '../../../tool-view.ts';
import { withDownloadProgress } from '../download-progress.ts';
import { addApprovalOptions, createCommandApprover } from '../approval-options.ts';
import { addRegistryOption, addSourceOption } from '../registry-option.ts';
import { plural } from '../render-pack-output.ts';
import { addProjectPack, findAddedUnrunnableTools } from './index.ts';
import { groupUnrunnableTools } from '../../../find-unrunnable-tools.ts';

export function createAddCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('add')
    .description('Add a pack to this project and install it')
    .argument(
      '<name[@range]>',
      'the pack, optionally with a semver range (jira, jira@^1.2.0, acme/jira@1.x)',
    )
    .option('--as <alias>', "serve the pack's tools as <alias>_<tool> (default: the pack's name)");
  addRegistryOption(command);
  addSourceOption(command);
  addApprovalOptions(command);
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack add jira                         # the latest version, recorded as ^<version>
  mcp pack add jira@~1.2 --as tracker       # tools served as tracker_*
  mcp pack add json --registry ~/my-packs
  mcp pack add jira --allow network,env:JIRA_BASE_URL,env:JIRA_EMAIL,env:JIRA_API_TOKEN
  mcp pack add json --yes                   # no terminal (CI, scripts): approve what it asks
  mcp pack add EchoTools --source https://www.powershellgallery.com/api/v2   # a PowerShell module
  mcp pack add EchoTools --source corp      # from the feed corp: in toolpack.yaml (feeds:)

Prints what the pack's tools may touch (files, network, environment, programs) before
anything is installed and asks you to approve it; without a terminal it needs --yes, or
--allow with grants that cover everything it asks for (tool changes are shown, not refused).
Writes toolpack.yaml (the range), toolpack.lock (the exact version, its integrity, the
approved permissions and a hash of each tool's definition) and .toolpack/packs/<alias>/.
Nothing changes when anything fails or is not approved. Once added, it warns about the
pack's tools this machine cannot run (pwsh or an interpreter missing), with the fix.

Exit codes: 0 added, 1 it could not be added or was not approved, 2 bad input or no one
to ask (no terminal, no --yes or --allow).`,
  );
  command.action(
    async (
      specifier: string,
      flags: { as?: string; registry?: string; source?: string; yes?: boolean; allow?: string },
    ) => {
      const approve = createCommandApprover(io, flags);
      const report = await withDownloadProgress(io, (onDownload) =>
        addProjectPack({
          cwd: io.cwd,
          env: io.env,
          specifier,
          ...(flags.as === undefined ? {} : { as: flags.as }),
          ...(flags.registry === undefined ? {} : { registry: flags.registry }),
          ...(flags.source === undefined ? {} : { source: flags.source }),
          onDownload,
          ...(approve === undefined ? {} : { approve }),
        }),
      );
      const paint = createPainter(io.stdout, io.env);
      const warn = createPainter(io.stderr, io.env);
      const verb = report.unchanged
        ? 'already installed'
        : report.previousVersion
          ? `updated from ${report.previousVersion} to`
          : 'added';
      io.stdout.write(
        `${paint('green', verb)} ${report.name}@${report.version}${report.alias === report.name ? '' : ` as ${report.alias}`} (${report.range}) in ${displayPath(report.dir, io.cwd)}: ${plural(report.tools.length, 'tool')}\n`,
      );
      for (const tool of report.tools) io.stdout.write(`  ${tool}\n`);
      if (report.deprecated !== undefined)
        io.stderr.write(
          `${warn('yellow', 'warning')} ${report.name}@${report.version} is deprecated: ${report.deprecated}\n`,
        );
      for (const env of report.missingEnv) {
        io.stderr.write(
          `${warn('yellow', 'warning')} ${report.alias} needs ${env.name}${env.secret ? ' (a secret)' : ''}, which is not set: set it before serving${env.description ? ` (${env.description})` : ''}.\n`,
        );
      }
      const unrunnable = await findAddedUnrunnableTools(io, report);
      if (unrunnable.length > 0) {
        io.stderr.write(
          `${warn('yellow', 'warning')} ${unrunnable.length} of ${report.alias}'s ${plural(report.tools.length, 'tool')} cannot run on this machine (mcp list and mcp serve keep saying so until it is fixed):\n`,
        );
        for (const group of groupUnrunnableTools(unrunnable)) {
          io.stderr.write(`  ${group.reason}: ${group.tools.join(', ')}\n`);
          io.stderr.write(`    ${warn('dim', `fix: ${group.fix}`)}\n`);
        }
      }
      done(EXIT_OK);
    },
  );
  return command;
}
