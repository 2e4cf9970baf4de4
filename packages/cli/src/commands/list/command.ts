import { Command } from 'commander';
import {
  formatDiagnostic,
  type Diagnostic,
  type SchemaDialect,
  type SourceSpec,
} from '@toolpack/core';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { renderUnrunnableTools } from '../../find-unrunnable-tools.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { parseSchemaDialect } from '../../option-parsers.ts';
import { renderTable } from '../../render-table.ts';
import { addSourceFlags, describeNoSources, type SourceFlagValues } from '../../source-flags.ts';
import { listTools, type ListToolsReport } from './index.ts';

export function createListCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('list')
    .description('List the tools a client would get, with why any were refused or renamed')
    .option(
      '--json',
      'print {"tools": [...], "diagnostics": [...], "cannotRunHere": [...]} instead of a table',
    )
    .option(
      '--schema-dialect <dialect>',
      'show input schemas as tools/list sends them in this dialect (portable, exact, openai-strict); default: each tool’s own',
      parseSchemaDialect,
    );
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
Examples:
  mcp list                                  # the sources of ./toolpack.yaml
  mcp list --script-root ./scripts --module ./Widgets/Widgets.psd1 --include 'Get-*'
  mcp list --tools-dir '.bot/workflows/*/tools' --json
  mcp list --json --schema-dialect portable   # input schemas as tools/list sends them

Tools this machine cannot run (pwsh missing, no interpreter for .bas, a pack's required
env variable unset) are named after the table, with the fix; --json has them apart, as
cannotRunHere ({tool, path, line, reason, fix} each), so tools and diagnostics are the
same on every machine.

Exit codes: 0 the sources were read (refused tools or not), 1 a source that promises tools
yields none (E_MODULE_NO_TOOLS), a module pwsh cannot import (E_MODULE_IMPORT) or whose
exports need a pwsh this machine lacks (E_MODULE_NEEDS_PWSH), 2 bad flags or a missing source.`,
  );
  command.action(
    async (flags: SourceFlagValues & { json?: boolean; schemaDialect?: SchemaDialect }) => {
      const report = await listTools({
        cwd: io.cwd,
        env: io.env,
        sources,
        flags,
        onNoSources: () => io.stderr.write(describeNoSources()),
        ...(flags.schemaDialect === undefined ? {} : { schemaDialect: flags.schemaDialect }),
      });
      if (flags.json) {
        const { tools, diagnostics, cannotRunHere } = report;
        io.stdout.write(`${JSON.stringify({ tools, diagnostics, cannotRunHere }, null, 2)}\n`);
      } else {
        io.stdout.write(renderListReport(report, io));
        const paint = createPainter(io.stdout, io.env);
        const lines = renderUnrunnableTools(report.cannotRunHere, {
          total: report.tools.length,
          paint,
        });
        if (lines.length > 0) io.stdout.write(`\n${lines.join('\n')}\n`);
      }
      done(report.diagnostics.some((d) => SOURCE_FAILURES.has(d.code)) ? EXIT_FAILURE : EXIT_OK);
    },
  );
  return command;
}

/**
 * Diagnostics that say a whole source came out empty though it promised tools: listing then
 * fails, so a script or CI step notices, where a refused tool among served ones does not.
 */
const SOURCE_FAILURES: ReadonlySet<string> = new Set([
  'E_MODULE_NO_TOOLS',
  // Its tools could not run, or which they are is not known here.
  'E_MODULE_IMPORT',
  'E_MODULE_NEEDS_PWSH',
]);

/** Info diagnostics `mcp list` prints (the rest only show with --json). */
const SHOWN_NOTES = new Set<string>(['I_DOTBOT_SESSION', 'I_ENGINE_EXPORTS']);

function renderListReport(report: ListToolsReport, io: CliIo): string {
  const paint = createPainter(io.stdout, io.env);
  const problemsByPath = new Map<string, Diagnostic[]>();
  for (const d of report.diagnostics)
    problemsByPath.set(d.path, [...(problemsByPath.get(d.path) ?? []), d]);
  const rows = report.tools.map((tool) => {
    const problems = (problemsByPath.get(tool.source.path) ?? []).filter(
      (d) => d.severity !== 'info',
    );
    const where =
      tool.source.line === undefined ? tool.source.path : `${tool.source.path}:${tool.source.line}`;
    return [
      tool.name,
      tool.source.kind,
      where,
      tool.description,
      problems.length === 0
        ? ''
        : `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`,
    ];
  });
  let out = renderTable(
    [
      { title: 'NAME', max: 40 },
      { title: 'KIND', max: 11 },
      { title: 'SOURCE', max: 44, truncate: 'start' },
      { title: 'DESCRIPTION', max: 400, flex: true },
      { title: 'PROBLEMS', max: 12 },
    ],
    rows,
    // A terminal gets a table that fits it; a pipe or a file gets whole descriptions.
    io.stdout.isTTY ? Math.max(80, io.stdout.columns ?? 120) : Number.POSITIVE_INFINITY,
  );
  const shown = report.diagnostics.filter((d) => d.severity !== 'info');
  if (shown.length > 0) {
    out += `\n${paint('bold', 'Problems')}\n`;
    for (const d of shown) {
      const color = d.severity === 'error' ? 'red' : 'yellow';
      const { hint, ...rest } = d;
      out += `  ${paint(color, formatDiagnostic(rest))}\n`;
      if (hint !== undefined) out += `    ${paint('dim', `fix: ${hint}`)}\n`;
    }
  }
  // Notes a user should see without asking: how a source's tools will run.
  const notes = report.diagnostics.filter((d) => SHOWN_NOTES.has(d.code));
  if (notes.length > 0) {
    out += `\n${paint('bold', 'Notes')}\n`;
    for (const d of notes) out += `  ${paint('dim', formatDiagnostic(d))}\n`;
  }
  const errors = shown.filter((d) => d.severity === 'error').length;
  const warnings = shown.length - errors;
  out += `\n${report.tools.length} ${report.tools.length === 1 ? 'tool' : 'tools'}`;
  if (errors > 0) out += `, ${paint('red', `${errors} ${errors === 1 ? 'error' : 'errors'}`)}`;
  if (warnings > 0)
    out += `, ${paint('yellow', `${warnings} ${warnings === 1 ? 'warning' : 'warnings'}`)}`;
  return `${out}\n`;
}
