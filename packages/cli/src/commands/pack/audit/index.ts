import type { Diagnostic } from '@toolpack/core';
import { auditPacks, type PackAudit } from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import type { SandboxStatus } from '../approve-packs.ts';

/** What `mcp pack audit --json` prints. */
export interface PackAuditReport {
  /** Whether the OS sandbox can be had here: without it the grants are recorded, not enforced. */
  sandbox: SandboxStatus;
  packs: PackAudit[];
  /** Problems of toolpack.yaml and toolpack.lock. */
  diagnostics: Diagnostic[];
}

/** What every pack of the project may do, and whether the sandbox enforces it here. */
export async function auditProjectPacks(options: CommandContext): Promise<PackAuditReport> {
  const [{ packs, diagnostics }, { describeSandbox }] = await Promise.all([
    auditPacks(options.cwd),
    import('@toolpack/runners'),
  ]);
  const { available, reason } = describeSandbox(options.env);
  return { sandbox: { available, reason }, packs, diagnostics };
}

/** Whether the audit found something to act on: a pack asking for more, or never approved. */
export function hasAuditFindings(report: PackAuditReport): boolean {
  return report.packs.some((p) => p.status === 'asks-more' || !p.approved);
}
