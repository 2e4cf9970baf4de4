import { Command } from 'commander';
import { describeDifferences } from '@toolpack/packs';
import { EXIT_OK } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { withDownloadProgress } from '../download-progress.ts';
import { addApprovalOptions, createCommandApprover } from '../approval-options.ts';
import { addRegistryOption } from '../registry-option.ts';
import { plural } from '../render-pack-output.ts';
import { installProjectPacks } from './index.ts';

export function createInstallCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('install')
    .alias('i')
    .description('Install exactly the packs toolpack.lock names into .toolpack/packs/')
    .option('--frozen', 'fail when toolpack.lock does not match toolpack.yaml (for CI)')
    .option('--offline', 'use only the pack cache; never download');
  addRegistryOption(command);
  addApprovalOptions(command);
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack install                          # after a clone: what toolpack.lock says
  mcp pack install --frozen                 # CI: refuse a lockfile that drifted from toolpack.yaml
  mcp pack install --offline                # from the cache only

Tarballs come from the content-addressed cache ($TOOLPACK_CACHE_DIR, else ~/.cache/toolpack)
when it has them, and every tarball's integrity is checked against toolpack.lock. A pack
already in .toolpack/packs/ is up to date only when its files are exactly its tarball's;
otherwise it is reinstalled (with --frozen, a pack that cannot be checked is an error).
A pack that asks for more than toolpack.lock approved, or whose tools are new or changed
(or were never pinned), stops and shows the difference: approve it on a terminal, or pass
--yes or --allow <grants>. --frozen never asks: any such difference is an error.

Exit codes: 0 installed, 1 it could not be installed or was not approved (nothing changed),
2 bad input or no one to ask (no terminal, no --yes or --allow).`,
  );
  command.action(
    async (flags: {
      frozen?: boolean;
      offline?: boolean;
      registry?: string;
      yes?: boolean;
      allow?: string;
    }) => {
      const approve = flags.frozen ? undefined : createCommandApprover(io, flags);
      const report = await withDownloadProgress(io, (onDownload) =>
        installProjectPacks({
          cwd: io.cwd,
          env: io.env,
          ...(flags.frozen ? { frozen: true } : {}),
          ...(flags.offline ? { offline: true } : {}),
          ...(flags.registry === undefined ? {} : { registry: flags.registry }),
          onDownload,
          ...(approve === undefined ? {} : { approve }),
        }),
      );
      const paint = createPainter(io.stdout, io.env);
      const warn = createPainter(io.stderr, io.env);
      for (const { alias, differences } of report.repaired)
        io.stderr.write(
          `${warn('yellow', 'warning')} .toolpack/packs/${alias} did not match its locked tarball (${describeDifferences(differences)}); reinstalling it.\n`,
        );
      for (const { alias, reason } of report.unverified)
        io.stderr.write(
          `${warn('yellow', 'warning')} .toolpack/packs/${alias} was not checked against its locked tarball: ${reason}\n`,
        );
      for (const p of report.installed)
        io.stdout.write(
          `${paint('green', 'installed')} ${p.name}@${p.version}${p.alias === p.name ? '' : ` as ${p.alias}`}${p.fromCache ? ' (from the cache)' : ''}\n`,
        );
      for (const { review, asked } of report.reviewed)
        io.stdout.write(
          `${review.alias}: ${asked ? 'approved' : 'recorded'} its permissions and tool definitions in toolpack.lock\n`,
        );
      for (const alias of report.removed)
        io.stdout.write(`${paint('green', 'removed')} ${alias} (no longer in toolpack.yaml)\n`);
      for (const { alias, env } of report.missingEnv)
        io.stderr.write(
          `${warn('yellow', 'warning')} ${alias} needs ${env.name}${env.secret ? ' (a secret)' : ''}, which is not set: set it before serving.\n`,
        );
      io.stdout.write(
        `${plural(report.installed.length, 'pack')} installed, ${report.upToDate.length} up to date${report.lockChanged ? ', toolpack.lock updated' : ''}\n`,
      );
      done(EXIT_OK);
    },
  );
  return command;
}
