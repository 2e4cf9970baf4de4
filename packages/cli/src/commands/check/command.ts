import { Command } from 'commander';
import { formatDiagnostic, type SourceSpec } from '@toolpack/core';
import { MANIFEST_FILE } from '@toolpack/packs';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { renderUnrunnableTools } from '../../find-unrunnable-tools.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { addSourceFlags, type SourceFlagValues } from '../../source-flags.ts';
import { checkProject } from './index.ts';

export function createCheckCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('check')
    .description(
      'Check every source and explain each problem with its fix; exit 1 when any is an error',
    )
    .option('--json', 'print {"tools": [...], "diagnostics": [...], "cannotRunHere": [...]}');
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
Examples:
  mcp check                          # the sources of ./toolpack.yaml
  mcp check --script-root ./scripts --strict

Errors: any problem of ${MANIFEST_FILE} (an unknown key such as soruces: included), no
${MANIFEST_FILE} and no source flags, sources that give no tool, a tool's own error.
Tools this machine cannot run (pwsh missing, no interpreter for .bas, a pack's required
env variable unset) are named with the fix but are not errors: the project is right, and
a CI machine without pwsh must still be able to check a project with PowerShell tools.

Exit codes: 0 no errors (warnings allowed), 1 at least one error, 2 bad flags or a missing source.`,
  );
  command.action(async (flags: SourceFlagValues & { json?: boolean }) => {
    const report = await checkProject({ cwd: io.cwd, env: io.env, sources, flags });
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
      for (const line of renderUnrunnableTools(report.cannotRunHere, {
        total: report.tools.length,
        paint,
      }))
        io.stdout.write(`${line}\n`);
      const warnings = report.diagnostics.filter((d) => d.severity === 'warning').length;
      const cannotRun = report.cannotRunHere.length;
      io.stdout.write(
        `${report.tools.length} tools checked: ${errors.length} ${errors.length === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}${cannotRun > 0 ? `; ${cannotRun} cannot run on this machine` : ''}\n`,
      );
    }
    done(errors.length > 0 ? EXIT_FAILURE : EXIT_OK);
  });
  return command;
}
