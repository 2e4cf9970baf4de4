// Shared by the runner tests only (not exported from the package).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DiscoveredTool, JsonSchema, ToolInvocation, ToolSourceKind } from '@toolpack/core';

export const hasProc = existsSync('/proc/self/stat');

/**
 * Bytes this thread's isolate still holds after a full collection: the V8 heap plus the
 * memory behind Buffers. Unlike RSS it does not depend on when V8 chose to collect or on
 * what the allocator kept for reuse, so "the runner does not hold a flood" stays true on a
 * loaded machine. Worker isolates are not included; their heaps have their own limits.
 */
export function retainedBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // One collection can leave a freed flood's Buffer memory counted (16 MB of 100 MB seen
  // after the first, 0.6 MB after the second): the memory behind a Buffer is released by a
  // weak callback that runs after the collection that found it dead. Collect until a pass
  // frees nothing more, at most five times.
  let retained = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 5; pass++) {
    gc();
    const usage = process.memoryUsage();
    const now = usage.heapUsed + usage.external;
    if (now >= retained) return now;
    retained = now;
  }
  return retained;
}

export interface MakeToolInput {
  name: string;
  invocation: ToolInvocation;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  timeoutMs?: number;
  additionalProperties?: boolean;
}

export function makeTool(input: MakeToolInput): DiscoveredTool {
  const kind: ToolSourceKind =
    input.invocation.runner === 'node-worker'
      ? 'js-module'
      : input.invocation.runner === 'pwsh'
        ? input.invocation.mode === 'module'
          ? 'ps-module'
          : input.invocation.mode
        : input.invocation.runner === 'process'
          ? 'script'
          : input.invocation.runner;
  const path =
    'scriptPath' in input.invocation
      ? input.invocation.scriptPath
      : 'modulePath' in input.invocation
        ? input.invocation.modulePath
        : input.name;
  return {
    name: input.name,
    originalName: input.name,
    description: `Test tool ${input.name}`,
    inputSchema: {
      type: 'object',
      properties: input.properties ?? {},
      ...(input.required === undefined ? {} : { required: input.required }),
      additionalProperties: input.additionalProperties ?? true,
    },
    source: { kind, path },
    invocation: input.invocation,
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
  };
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  state: string;
}

function readProcessTable(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/u.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may contain spaces and parentheses: fields resume after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      entries.push({ pid: Number(name), state: fields[0] ?? '', ppid: Number(fields[1]) });
    } catch {
      // The process ended while we looked.
    }
  }
  return entries;
}

/** Live (non-zombie) descendants of `rootPid`, from /proc. */
export function listDescendants(rootPid: number = process.pid): number[] {
  const table = readProcessTable().filter((entry) => entry.state !== 'Z');
  const children = new Map<number, number[]>();
  for (const entry of table) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }
  const found: number[] = [];
  const queue = [...(children.get(rootPid) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
export function isProcessAlive(pid: number): boolean {
  if (hasProc) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(
  check: () => boolean,
  timeoutMs: number,
  intervalMs = 20,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolveWait) => setTimeout(resolveWait, intervalMs));
  }
  return check();
}

export function firstText(result: { content: Array<{ type: string; text?: string }> }): string {
  const item = result.content.find((entry) => entry.type === 'text');
  return item?.text ?? '';
}
