import { createDiagnostic, findClosestName } from '@toolpack/core';
import type { Diagnostic, DiscoveredTool, WorkflowSpec } from '@toolpack/core';

interface WorkflowNode {
  name: string;
  spec: WorkflowSpec;
}

/**
 * The checks a workflow needs the whole catalogue for, run by the composer once every
 * source is composed: each step's tool must be served (`knownToolNames`, the final names),
 * and workflows must not call each other in a circle (`workflow_a` -> `workflow_b` ->
 * `workflow_a`), which would recurse until it timed out. Each problem is an error at the
 * step's line in its workflow file. Tools that are not workflows are ignored.
 */
export function checkWorkflowSteps(
  workflows: readonly DiscoveredTool[],
  knownToolNames: ReadonlySet<string>,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const nodes: WorkflowNode[] = [];
  for (const tool of workflows) {
    if (tool.invocation.runner === 'workflow')
      nodes.push({ name: tool.name, spec: tool.invocation.workflow });
  }

  for (const { name, spec } of nodes) {
    for (const step of spec.steps) {
      if (knownToolNames.has(step.tool)) continue;
      const meant = findClosestName(step.tool, knownToolNames, 3);
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_WORKFLOW_UNKNOWN_TOOL',
          `Step ${JSON.stringify(step.id)} of ${name} calls ${JSON.stringify(step.tool)}, which is not a served tool.`,
          step.line === undefined ? { path: spec.path } : { path: spec.path, line: step.line },
          meant === undefined
            ? 'Check the name against `mcp list`; a pack tool is named <alias>_<tool>.'
            : `Did you mean ${meant}?`,
        ),
      );
    }
  }

  const byName = new Map(nodes.map((node) => [node.name, node]));
  const edges = new Map<string, string[]>();
  for (const node of nodes) {
    edges.set(node.name, [
      ...new Set(node.spec.steps.map((s) => s.tool).filter((tool) => byName.has(tool))),
    ]);
  }
  const components = findStronglyConnected([...byName.keys()], edges);
  for (const component of components) {
    const members = new Set(component);
    for (const name of component) {
      const node = byName.get(name);
      if (node === undefined) continue;
      for (const step of node.spec.steps) {
        if (!members.has(step.tool)) continue;
        const cycle = [name, ...findPath(step.tool, name, edges, members)];
        diagnostics.push(
          createDiagnostic(
            'error',
            'E_WORKFLOW_CYCLE',
            cycle.length === 2
              ? `Step ${JSON.stringify(step.id)} of ${name} calls ${name} itself, which would never end.`
              : `Step ${JSON.stringify(step.id)} of ${name} makes workflows call each other in a circle: ${formatCycle(cycle)}.`,
            step.line === undefined
              ? { path: node.spec.path }
              : { path: node.spec.path, line: step.line },
            'Break the circle: a workflow must not call itself, directly or through others.',
          ),
        );
      }
    }
  }
  return diagnostics;
}

/** Tarjan's algorithm, iterative; keeps only components that contain a cycle. */
function findStronglyConnected(
  names: readonly string[],
  edges: ReadonlyMap<string, readonly string[]>,
): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];

  for (const start of names) {
    if (index.has(start)) continue;
    const work: { name: string; next: number }[] = [{ name: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame === undefined) break;
      const targets = edges.get(frame.name) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next] ?? '';
        frame.next += 1;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ name: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.name, Math.min(low.get(frame.name) ?? 0, index.get(target) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined)
        low.set(parent.name, Math.min(low.get(parent.name) ?? 0, low.get(frame.name) ?? 0));
      if (low.get(frame.name) === index.get(frame.name)) {
        const component: string[] = [];
        for (;;) {
          const member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
          if (member === frame.name) break;
        }
        const selfLoop =
          component.length === 1 && (edges.get(frame.name) ?? []).includes(frame.name);
        if (component.length > 1 || selfLoop) components.push(component.reverse());
      }
    }
  }
  return components;
}

/** The shortest way from `from` to `to` inside one component, both ends included. */
function findPath(
  from: string,
  to: string,
  edges: ReadonlyMap<string, readonly string[]>,
  members: ReadonlySet<string>,
): string[] {
  const previous = new Map<string, string | undefined>([[from, undefined]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head += 1) {
    const current = queue[head] ?? '';
    if (current === to) break;
    for (const next of edges.get(current) ?? []) {
      if (!members.has(next) || previous.has(next)) continue;
      previous.set(next, current);
      queue.push(next);
    }
  }
  const path: string[] = [];
  for (let at: string | undefined = to; at !== undefined; at = previous.get(at)) {
    path.push(at);
    if (at === from) break;
  }
  return path.reverse();
}

/** `a -> b -> a`, shortened in the middle when the circle is long. */
function formatCycle(cycle: readonly string[]): string {
  if (cycle.length <= 8) return cycle.join(' -> ');
  return [...cycle.slice(0, 4), `... (${cycle.length - 6} more)`, ...cycle.slice(-2)].join(' -> ');
}
