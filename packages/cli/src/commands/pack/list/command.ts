import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import type { CliIo } from '../../../io.ts';
import { renderTable } from '../../../render-table.ts';
import { writeDiagnostics } from '../render-pack-output.ts';
import { listPacks } from './index.ts';

const STATUS_TEXT = {
  installed: 'installed',
  'not-installed': 'not installed: run mcp pack install',
  'other-version': 'stale: run mcp pack install',
  'not-locked': 'not locked: run mcp pack install',
} as const;

export function createListPacksCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('list')
    .alias('ls')
    .description("List this project's packs: range, locked version and whether it is installed")
    .option('--json', 'print {"packs": [...]}')
    .addHelpText(
      'after',
      `
Examples:
  mcp pack list
  mcp pack list --json

Exit codes: 0 listed, 2 toolpack.yaml or toolpack.lock cannot be read.`,
    );
  command.action(async (flags: { json?: boolean }) => {
    const { packs, diagnostics } = await listPacks({ cwd: io.cwd });
    writeDiagnostics(io, diagnostics);
    if (flags.json) {
      io.stdout.write(`${JSON.stringify({ packs }, null, 2)}\n`);
    } else if (packs.length === 0) {
      io.stdout.write('No packs in toolpack.yaml. Add one with mcp pack add <name>.\n');
    } else {
      io.stdout.write(
        renderTable(
          [
            { title: 'ALIAS', max: 40 },
            { title: 'PACK', max: 60 },
            { title: 'RANGE', max: 24 },
            { title: 'LOCKED', max: 20 },
            { title: 'STATUS', max: 60, flex: true },
          ],
          packs.map((p) => [p.alias, p.name, p.range, p.version ?? '-', STATUS_TEXT[p.status]]),
          Math.max(80, io.stdout.columns ?? 120),
        ),
      );
    }
    done(EXIT_OK);
  });
  return command;
}
