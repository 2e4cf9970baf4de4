import { Command } from 'commander';
import { describePermissions } from '@toolpack/core';
import { describeInterpreters, type PackAudit } from '@toolpack/packs';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { plural, writeDiagnostics } from '../render-pack-output.ts';
import { auditProjectPacks, hasAuditFindings, type PackAuditReport } from './index.ts';

export function createAuditCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('audit')
    .description(
      "Print what every pack of this project may do (toolpack.lock's approved permissions) and whether the sandbox enforces it here",
    )
    .option('--json', 'print {"sandbox": {...}, "packs": [...]}')
    .addHelpText(
      'after',
      `
Examples:
  mcp pack audit
  mcp pack audit --json

For each pack: the files, network, environment and programs its tools may use (as approved
in toolpack.lock), whether its installed toolpack.yaml still asks for exactly that, and how
many tool definitions are pinned. Then whether the OS sandbox can be had on this machine:
without it the permissions are recorded but the tools run with your full rights.

Exit codes: 0 every pack approved and asking for no more, 1 a pack asks for more than was
approved or was never approved (run mcp pack install), 2 toolpack.yaml or toolpack.lock
cannot be read.`,
    );
  command.action(async (flags: { json?: boolean }) => {
    const report = await auditProjectPacks({ cwd: io.cwd, env: io.env });
    writeDiagnostics(io, report.diagnostics);
    if (report.diagnostics.length > 0) {
      done(EXIT_USAGE);
      return;
    }
    if (flags.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout.write(renderAudit(report, createPainter(io.stdout, io.env)));
    done(hasAuditFindings(report) ? EXIT_FAILURE : EXIT_OK);
  });
  return command;
}

type Paint = ReturnType<typeof createPainter>;

/** The audit as text: one block per pack, then the sandbox line. */
export function renderAudit(report: PackAuditReport, paint: Paint): string {
  if (report.packs.length === 0) return 'No packs in toolpack.yaml.\n';
  const blocks = report.packs.map((pack) => renderPack(pack, paint));
  const sandbox = report.sandbox.available
    ? `Sandbox: ${paint('green', 'on')}, pack tools are confined to these permissions (${report.sandbox.reason}).`
    : `Sandbox: ${paint('yellow', 'not available here')} (${report.sandbox.reason}): pack tools run with your full rights; these permissions are recorded, not enforced.`;
  return `${blocks.join('\n')}\n${sandbox}\n`;
}

function renderPack(pack: PackAudit, paint: Paint): string {
  const head = `${paint('bold', pack.alias)}${pack.alias === pack.name ? '' : ` (${pack.name})`} ${pack.version ?? '(not locked)'}`;
  const lines = [
    `${head}: ${describeStatus(pack, paint)}`,
    ...describePermissions(pack.permissions).map((line) => `  ${line}`),
    ...describeInterpreters(pack.interpreters).map((line) => `  ${line}`),
  ];
  const pinned = Object.keys(pack.tools).length;
  lines.push(
    `  tools: ${pinned > 0 ? `${plural(pinned, 'definition')} pinned` : 'not pinned (run mcp pack install)'}`,
  );
  return `${lines.join('\n')}\n`;
}

function describeStatus(pack: PackAudit, paint: Paint): string {
  if (!pack.approved)
    return paint(
      'yellow',
      'never approved: its tools get the least (run mcp pack install to review it)',
    );
  switch (pack.status) {
    case 'matches':
      return 'approved; the installed pack asks for exactly this';
    case 'asks-less':
      return 'approved; the installed pack asks for less (mcp pack install records it)';
    case 'not-installed':
      return 'approved; not installed (run mcp pack install)';
    case 'asks-more':
      return paint(
        'red',
        `the installed pack asks for more than approved (${pack.beyond.join(', ')}); its tools get only this (run mcp pack install)`,
      );
  }
}
