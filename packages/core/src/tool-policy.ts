import { z } from 'zod';
import { wildcardListSchema } from './source-spec.ts';

/** Which tools a server may offer. Rules match the served name and the source's own name. */
export interface ToolPolicy {
  /** Wildcards (`Get-*`, `jira_*`, case-insensitive); when given, a tool must match one. */
  allow?: string[];
  /** Wildcards; a matching tool is never offered, whatever `allow` says. */
  deny?: string[];
  /** Offer only tools that declare `readOnlyHint: true`. */
  readOnly?: boolean;
  /**
   * Refuse to run confined tools (every pack's) where the OS sandbox cannot be had, instead
   * of running them unconfined with a warning.
   */
  requireSandbox?: boolean;
  /** Where the policy came from (`toolpack.yaml:12`, `policy.yaml`), for denial messages. */
  origin?: string;
}

/** A policy as written: `toolpack.yaml`'s `policy:`, a pack's, or a `--policy` file. */
export const toolPolicySchema = z.strictObject({
  allow: wildcardListSchema.optional(),
  deny: wildcardListSchema.optional(),
  readOnly: z.boolean().optional(),
  requireSandbox: z.boolean().optional(),
});
