import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { removeProjectPack } from './index.ts';

export function createRemoveCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('remove')
    .alias('rm')
    .description(
      'Remove a pack from this project (toolpack.yaml, toolpack.lock and .toolpack/packs/)',
    )
    .argument('<name>', 'the alias or name of the pack')
    .addHelpText(
      'after',
      `
Examples:
  mcp pack remove jira
  mcp pack remove tracker                   # by alias

Files the pack alone created are deleted, so add then remove leaves the folder as it was.

Exit codes: 0 removed, 1 it could not be removed, 2 no such pack.`,
    );
  command.action(async (name: string) => {
    const report = await removeProjectPack({ cwd: io.cwd, name });
    const paint = createPainter(io.stdout, io.env);
    io.stdout.write(
      `${paint('green', 'removed')} ${report.name}${report.version === undefined ? '' : `@${report.version}`}${report.alias === report.name ? '' : ` (${report.alias})`}\n`,
    );
    done(EXIT_OK);
  });
  return command;
}
