import path from 'node:path';
import { Command } from 'commander';
import { createDiagnostic, formatDiagnostic, type Diagnostic } from '@toolpack/core';
import type { SourceSpec } from '@toolpack/discovery';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { findUncoveredToolFiles } from '../../find-uncovered-tool-files.ts';
import { renderUnrunnableTools, type UnrunnableTool } from '../../find-unrunnable-tools.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { PROJECT_FILE, readProjectProblems } from '../../project-config.ts';
import { addSourceFlags, type SourceFlagValues } from '../../source-flags.ts';
import { toDiagnosticView } from '../../tool-view.ts';
import { collectSourcesReport, type ListReport } from '../list/index.ts';

interface CheckReport extends ListReport {
  /** Valid tools this machine cannot run: reported, never an error (see `mcp check --help`). */
  cannotRunHere: UnrunnableTool[];
}

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

Errors: any problem of ${PROJECT_FILE} (an unknown key such as soruces: included), no
${PROJECT_FILE} and no source flags, sources that give no tool, a tool's own error.
Tools this machine cannot run (pwsh missing, no interpreter for .bas, a pack's required
env variable unset) are named with the fix but are not errors: the project is right, and
a CI machine without pwsh must still be able to check a project with PowerShell tools.

Exit codes: 0 no errors (warnings allowed), 1 at least one error, 2 bad flags or a missing source.`,
  );
  command.action(async (flags: SourceFlagValues & { json?: boolean }) => {
    const report = await checkSources(sources, flags, io);
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

/**
 * What `mcp check` reports: discovery's problems plus the ones only a check looks for, which
 * would otherwise pass with nothing served (no project, a manifest typo, no tools at all).
 */
async function checkSources(
  sources: SourceSpec[],
  flags: SourceFlagValues,
  io: CliIo,
): Promise<CheckReport> {
  // Every problem of toolpack.yaml with its line, rather than the first one thrown.
  const manifestProblems = sources.length === 0 ? await readProjectProblems(io.cwd) : [];
  if (manifestProblems.length > 0) {
    return {
      tools: [],
      diagnostics: manifestProblems.map((d) => toDiagnosticView(d, io.cwd)),
      cannotRunHere: [],
    };
  }
  const { report, resolved, unrunnable } = await collectSourcesReport(sources, flags, io);
  const own = report.tools.filter((tool) => tool.source.kind !== 'builtin');
  const extra: Diagnostic[] = [];
  if (resolved.origin !== 'flags') {
    extra.push(
      ...(await findUncoveredToolFiles({
        cwd: io.cwd,
        toolPaths: own.map((tool) => tool.source.path),
      })),
    );
  }
  if (resolved.origin === 'none') {
    extra.unshift(
      createDiagnostic(
        'error',
        'E_NO_SOURCES',
        `Nothing to check: no ${PROJECT_FILE} here and no source flags.`,
        { path: io.cwd },
        `Create ${PROJECT_FILE} with your sources (e.g. \`sources: [{ scripts: scripts }]\`), pass a source flag (--script-root DIR, --tools-dir DIR, --module PATH, --workflows DIR), or run mcp check in the project folder (-C DIR).`,
      ),
    );
  } else if (own.length === 0) {
    const emptyProject =
      resolved.origin === 'project' &&
      resolved.options.sources.length === 0 &&
      resolved.packs.length === 0;
    extra.unshift(
      createDiagnostic(
        'error',
        'E_NO_TOOLS',
        emptyProject
          ? `${PROJECT_FILE} has no sources and no packs: it serves no tool.`
          : `The sources give no tool: a client would get only the built-in tools.`,
        { path: resolved.origin === 'project' ? path.join(io.cwd, PROJECT_FILE) : io.cwd },
        emptyProject
          ? `Add sources: to ${PROJECT_FILE} (e.g. \`sources: [{ scripts: scripts }]\`) or a pack (mcp pack add NAME); mcp new tool NAME creates a first tool.`
          : 'Check the source paths and the include:/exclude: patterns; mcp list shows what each source gives.',
      ),
    );
  }
  return {
    ...report,
    diagnostics: [...report.diagnostics, ...extra.map((d) => toDiagnosticView(d, io.cwd))],
    cannotRunHere: unrunnable,
  };
}
