import picomatch from 'picomatch';
import { z } from 'zod';
import { createDiagnostic, type Diagnostic, type DiscoveredTool } from '@toolpack/core';

/** Which tools a server may offer. Rules match the served name and the source's own name. */
export interface ToolPolicy {
  /** Wildcards (`Get-*`, `jira_*`, case-insensitive); when given, a tool must match one. */
  allow?: string[];
  /** Wildcards; a matching tool is never offered, whatever `allow` says. */
  deny?: string[];
  /** Offer only tools that declare `readOnlyHint: true`. */
  readOnly?: boolean;
  /** Where the policy came from (`toolpack.yaml:12`, `policy.yaml`), for denial messages. */
  origin?: string;
}

export type PolicyVerdict = { allowed: true } | { allowed: false; reason: string };

export interface LoadedPolicy {
  /** Undefined when the file has errors: a server must not start with half a policy. */
  policy?: ToolPolicy;
  diagnostics: Diagnostic[];
}

const patterns = z.array(z.string().min(1, 'a pattern cannot be empty'));
const policySchema = z.strictObject({
  allow: patterns.optional(),
  deny: patterns.optional(),
  readOnly: z.boolean().optional(),
});

const POLICY_HINT =
  'A policy is { allow: [wildcards], deny: [wildcards], readOnly: true|false }, e.g. policy: { deny: ["*_delete*"] }.';

/**
 * Checks a policy value (from `toolpack.yaml`'s `policy:` or a policy file, already parsed)
 * and returns it with `origin` set, or the diagnostics that explain what is wrong with it.
 * `location.path` is shown as given, so pass it relative to the project for messages.
 */
export function parsePolicy(
  value: unknown,
  location: { path: string; line?: number },
): LoadedPolicy {
  const parsed = policySchema.safeParse(value ?? {});
  if (!parsed.success) {
    return {
      diagnostics: parsed.error.issues.map((issue) =>
        createDiagnostic(
          'error',
          'E_POLICY',
          `The policy is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}.`,
          location,
          POLICY_HINT,
        ),
      ),
    };
  }
  const policy: ToolPolicy = {
    ...parsed.data,
    origin: location.line === undefined ? location.path : `${location.path}:${location.line}`,
  };
  return { policy, diagnostics: [] };
}

/** True when a policy restricts anything at all. */
export function isRestrictive(policy: ToolPolicy | undefined): boolean {
  return (
    policy !== undefined &&
    ((policy.allow?.length ?? 0) > 0 || (policy.deny?.length ?? 0) > 0 || policy.readOnly === true)
  );
}

/**
 * Compiles a policy into a verdict per tool. `deny` beats `allow`; built-ins obey the
 * policy like any tool (both are read-only, so `readOnly` keeps them).
 */
export function createPolicyFilter(
  policy: ToolPolicy | undefined,
): (tool: DiscoveredTool) => PolicyVerdict {
  if (!isRestrictive(policy) || policy === undefined) return () => ({ allowed: true });
  const options = { nocase: true, dot: true };
  const allow = (policy.allow ?? []).map((p) => ({ pattern: p, match: picomatch(p, options) }));
  const deny = (policy.deny ?? []).map((p) => ({ pattern: p, match: picomatch(p, options) }));
  const from = policy.origin === undefined ? 'the policy' : `the policy in ${policy.origin}`;
  return (tool) => {
    const names = tool.originalName === tool.name ? [tool.name] : [tool.name, tool.originalName];
    const denied = deny.find((rule) => names.some((n) => rule.match(n)));
    if (denied !== undefined) {
      return {
        allowed: false,
        reason: `Tool ${tool.name} is denied by ${from} (deny: "${denied.pattern}").`,
      };
    }
    if (allow.length > 0 && !allow.some((rule) => names.some((n) => rule.match(n)))) {
      return {
        allowed: false,
        reason: `Tool ${tool.name} is not allowed by ${from} (it matches none of allow: ${allow
          .map((rule) => `"${rule.pattern}"`)
          .join(', ')}).`,
      };
    }
    if (policy.readOnly === true && tool.annotations?.readOnlyHint !== true) {
      return {
        allowed: false,
        reason: `Tool ${tool.name} is denied by ${from}: readOnly is on and the tool does not declare readOnlyHint: true.`,
      };
    }
    return { allowed: true };
  };
}
