import { Command } from 'commander';
import { formatDiagnostic } from '@toolpack/core';
import type { SourceSpec } from '@toolpack/discovery';
import { EXIT_FAILURE, EXIT_OK } from '../exit-codes.ts';
import { createPainter, type CliIo } from '../io.ts';
import { addSourceFlags, type SourceFlagValues } from '../source-flags.ts';
import { collectListReport } from './list.ts';

export function createCheckCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('check')
    .description(
      'Check every source and explain each problem with its fix; exit 1 when any is an error',
    )
    .option('--json', 'print {"tools": [...], "diagnostics": [...]}');
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
Examples:
  mcp check                          # the sources of ./toolpack.yaml
  mcp check --script-root ./scripts --strict

Exit codes: 0 no errors (warnings allowed), 1 at least one error, 2 bad flags or a missing source.`,
  );
  command.action(async (flags: SourceFlagValues & { json?: boolean }) => {
    const report = await collectListReport(sources, flags, io);
    const errors = report.diagnostics.filter((d) => d.severity === 'error');
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const paint = createPainter(io.stdout, io.env);
      for (const d of report.diagnostics) {
        const color = d.severity === 'error' ? 'red' : d.severity === 'warning' ? 'yellow' : 'dim';
        const { hint, ...rest } = d;
        io.stdout.write(`${paint(color, formatDiagnostic(rest))}\n`);
        if (hint !== undefined) io.stdout.write(`  ${paint('dim', `fix: ${hint}`)}\n`);
      }
      const warnings = report.diagnostics.filter((d) => d.severity === 'warning').length;
      io.stdout.write(
        `${report.tools.length} tools checked: ${errors.length} ${errors.length === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}\n`,
      );
    }
    done(errors.length > 0 ? EXIT_FAILURE : EXIT_OK);
  });
  return command;
}
