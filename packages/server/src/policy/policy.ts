import picomatch from 'picomatch';
import type { DiscoveredTool, ToolPolicy } from '@toolpack/core';

export type PolicyVerdict = { allowed: true } | { allowed: false; reason: string };

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
