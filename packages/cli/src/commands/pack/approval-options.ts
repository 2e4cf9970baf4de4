import type { Command } from 'commander';
import type { ApprovePack } from '@toolpack/packs';
import type { CliIo } from '../../io.ts';
import { createApprover, type ApprovalFlags } from './approve-packs.ts';

/** `--yes` and `--allow <grants>`, shared by add, update and install. */
export function addApprovalOptions(command: Command): Command {
  return command
    .option('-y, --yes', 'approve what the packs ask for without asking (print it still)')
    .option(
      '--allow <grants>',
      'approve only packs that ask for nothing beyond these grants, e.g. read:project,write:temp,network,env:JIRA_API_TOKEN,subprocess',
    );
}

/**
 * The approve callback for a command run by a person or a script: on a terminal it asks;
 * without one it needs --yes or --allow (else the command refuses with E_APPROVAL_REQUIRED).
 */
export function createCommandApprover(io: CliIo, flags: ApprovalFlags): ApprovePack | undefined {
  return createApprover({
    flags,
    input: process.stdin,
    output: io.stderr,
    // Loaded only when something is to be approved: the runners are not small.
    sandbox: async () => (await import('@toolpack/runners')).describeSandbox(io.env),
  });
}
