import {
  LEAST_PERMISSIONS,
  ToolpackError,
  findPermissionWidening,
  normalizePermissions,
  type PackPermissions,
} from '@toolpack/core';
import {
  areInterpretersEqual,
  findInterpreterWidening,
  normalizeInterpreters,
  type InterpreterMap,
} from '../interpreters/pack-interpreters.ts';
import type { LockEntry } from '../lock/lockfile.ts';
import { hashToolDefinition } from '../pins/tool-hash.ts';
import type { StagedToolCheck } from './staged-tools.ts';

/** How a pack's served tools differ from the ones toolpack.lock pinned (served names). */
export interface ToolChanges {
  added: string[];
  removed: string[];
  /** Same name, another definition (description, input schema or hints). */
  changed: string[];
}

/** What a person approves for one pack: `approve` gets one per pack that needs it. */
export interface ApprovalRequest {
  alias: string;
  name: string;
  version: string;
  /** The version installed before, when this replaces one. */
  previousVersion?: string;
  /** What the pack's own toolpack.yaml asks for (normalised, `env:` names merged in). */
  permissions: PackPermissions;
  /**
   * What toolpack.lock approved before; absent when nothing was (a new pack, or a lock
   * written before permissions, which counts as the least).
   */
  approved?: PackPermissions;
  /**
   * The pack's own `interpreters:` (normalised; `{}` when none): they run its tools, so they
   * are shown, approved and locked with its permissions.
   */
  interpreters: InterpreterMap;
  /**
   * `findPermissionWidening(approved ?? LEAST_PERMISSIONS, permissions)`, then each
   * interpreter that is new or changed since the lock: one line each.
   */
  widening: string[];
  /**
   * The interpreter lines of `widening` alone: `--allow` grants no interpreter, so these
   * always need `--yes` or a person.
   */
  interpreterWidening: string[];
  /** Against the pins; every served tool is `added` when nothing was pinned. */
  tools: ToolChanges;
  /** Whether toolpack.lock pinned this pack's tools before. */
  pinned: boolean;
  /** Why some tools could not be read: those are kept pinned as they were, not called removed. */
  unread: string[];
}

/**
 * Asked for each pack that needs approval, before anything is put in place; `false` refuses
 * (E_APPROVAL_DECLINED, nothing installed). It may also throw to refuse with its own words.
 */
export type ApprovePack = (request: ApprovalRequest) => boolean | Promise<boolean>;

/**
 * - `add`: a first approval: asked unless the lock already approved exactly this;
 * - `update`, `install`: asked only when a permission widens or a tool is new or changed
 *   (narrowing is recorded without asking);
 * - `frozen`: never asked: any difference from the lock is E_PERMISSION_DRIFT.
 */
export type ApprovalMode = 'add' | 'update' | 'install' | 'frozen';

export interface PackReview {
  request: ApprovalRequest;
  /**
   * The lock entry's new `permissions`, `tools` (none when nothing could be discovered) and
   * `interpreters` (none when the pack declares none).
   */
  grant: Pick<LockEntry, 'permissions' | 'tools' | 'interpreters'>;
  /** Whether anything differs from what the lock holds: permissions, pins, or pins missing. */
  drifted: boolean;
  needsApproval: boolean;
}

export function arePermissionsEqual(a: PackPermissions, b: PackPermissions): boolean {
  return JSON.stringify(normalizePermissions(a)) === JSON.stringify(normalizePermissions(b));
}

/**
 * Compares what a staged or installed pack asks for (its manifest's permissions, its served
 * tools from `check`) with what toolpack.lock approved for the alias (`locked`, when it is
 * the same pack), and says whether `mode` must ask.
 */
export function reviewPack(options: {
  alias: string;
  name: string;
  version: string;
  permissions: PackPermissions;
  /** What the pack's own toolpack.yaml declares under `interpreters:`. */
  interpreters?: Readonly<Record<string, readonly string[]>>;
  locked?: LockEntry;
  check?: StagedToolCheck;
  mode: ApprovalMode;
}): PackReview {
  const { alias, name, version, mode } = options;
  const locked = options.locked?.name === name ? options.locked : undefined;
  const permissions = normalizePermissions(options.permissions);
  const approved = locked?.permissions;
  const interpreters = normalizeInterpreters(options.interpreters);
  // A lock written before interpreters were locked approved none: a pack's count as new.
  const interpreterWidening = findInterpreterWidening(locked?.interpreters, interpreters);
  const widening = [
    ...findPermissionWidening(approved ?? LEAST_PERMISSIONS, permissions),
    ...interpreterWidening,
  ];
  const served = options.check?.tools[alias];
  const unread = options.check?.unread?.[alias] ?? [];
  const pinnedBefore = locked?.tools;
  const tools: ToolChanges = { added: [], removed: [], changed: [] };
  let pins: Record<string, string> | undefined;
  if (served !== undefined) {
    pins = Object.fromEntries(served.map((tool) => [tool.name, hashToolDefinition(tool)]));
    for (const [tool, hash] of Object.entries(pins)) {
      const before = pinnedBefore?.[tool];
      if (before === undefined) tools.added.push(tool);
      else if (before !== hash) tools.changed.push(tool);
    }
    for (const [tool, hash] of Object.entries(pinnedBefore ?? {})) {
      if (Object.hasOwn(pins, tool)) continue;
      // A tool that could not be read this time is not known to be gone: keep its pin.
      if (unread.length > 0) pins[tool] = hash;
      else tools.removed.push(tool);
    }
    for (const list of Object.values(tools)) list.sort();
  }
  const permissionsChanged =
    approved === undefined ||
    !arePermissionsEqual(approved, permissions) ||
    !areInterpretersEqual(locked?.interpreters, interpreters);
  const toolsChanged =
    served !== undefined &&
    (pinnedBefore === undefined ||
      tools.added.length + tools.removed.length + tools.changed.length > 0);
  const drifted = permissionsChanged || toolsChanged;
  const needsApproval =
    mode === 'add'
      ? drifted
      : mode === 'frozen'
        ? false
        : widening.length > 0 ||
          tools.added.length + tools.changed.length > 0 ||
          (served !== undefined && pinnedBefore === undefined);
  const request: ApprovalRequest = {
    alias,
    name,
    version,
    ...(locked !== undefined && locked.version !== version
      ? { previousVersion: locked.version }
      : {}),
    permissions,
    ...(approved === undefined ? {} : { approved: normalizePermissions(approved) }),
    interpreters,
    widening,
    interpreterWidening,
    tools,
    pinned: pinnedBefore !== undefined,
    unread,
  };
  return {
    request,
    grant: {
      permissions,
      ...(pins === undefined ? {} : { tools: pins }),
      // Also when it now declares none but the lock had some: the entry must drop them.
      ...(Object.keys(interpreters).length === 0 && locked?.interpreters === undefined
        ? {}
        : { interpreters }),
    },
    drifted,
    needsApproval,
  };
}

/**
 * Asks `approve` about every review that needs it, in order, before anything is written:
 * without `approve` any such review is E_APPROVAL_REQUIRED (all named at once), a refusal is
 * E_APPROVAL_DECLINED. Under `frozen` any drift is E_PERMISSION_DRIFT instead.
 */
export async function obtainApprovals(
  reviews: readonly PackReview[],
  options: { approve?: ApprovePack | undefined; frozen?: boolean },
): Promise<void> {
  if (options.frozen) {
    const drifted = reviews.filter((review) => review.drifted);
    if (drifted.length === 0) return;
    throw new ToolpackError(
      'E_PERMISSION_DRIFT',
      `toolpack.lock did not approve what the installed packs ask for (--frozen), so nothing was installed:\n${drifted.map((r) => `  - ${describeDrift(r.request)}`).join('\n')}`,
      {
        hint: 'Run mcp pack install without --frozen to review and approve the difference, then commit toolpack.lock.',
      },
    );
  }
  const asked = reviews.filter((review) => review.needsApproval);
  if (asked.length === 0) return;
  const approve = options.approve;
  if (approve === undefined) {
    throw new ToolpackError(
      'E_APPROVAL_REQUIRED',
      `${asked.length === 1 ? 'A pack needs' : 'Packs need'} your approval and there is no one to ask, so nothing was installed:\n${asked.map((r) => `  - ${describeDrift(r.request)}`).join('\n')}`,
      {
        hint: 'Run the command on a terminal to be asked, or pass --yes (approve what the packs ask for) or --allow <grants> (approve only within them, e.g. --allow network,env:JIRA_API_TOKEN).',
      },
    );
  }
  for (const review of asked) {
    const { name, version } = review.request;
    if (!(await approve(review.request))) {
      throw new ToolpackError(
        'E_APPROVAL_DECLINED',
        `${name}@${version} was not approved, so nothing was installed.`,
        {
          hint:
            review.request.previousVersion === undefined
              ? 'Nothing changed.'
              : `Nothing changed: ${review.request.alias} stays at ${review.request.previousVersion}. Narrow its range in toolpack.yaml to keep it there, or run the command again and approve.`,
        },
      );
    }
  }
}

/** `jira@1.3.0 (from 1.2.0): network access (any host); tools changed: jira_get`. */
export function describeDrift(request: ApprovalRequest): string {
  const parts: string[] = [];
  if (request.approved === undefined)
    parts.push(
      `not approved yet, asks to ${request.widening.length > 0 ? request.widening.join(', ') : 'touch nothing beyond its own folder'}`,
    );
  else if (request.widening.length > 0) parts.push(`asks for more: ${request.widening.join(', ')}`);
  else if (!arePermissionsEqual(request.approved, request.permissions)) parts.push('asks for less');
  if (!request.pinned && request.tools.added.length > 0) parts.push('tools not pinned yet');
  else {
    for (const [kind, names] of Object.entries(request.tools))
      if (names.length > 0) parts.push(`tools ${kind}: ${names.join(', ')}`);
  }
  const from = request.previousVersion === undefined ? '' : ` (from ${request.previousVersion})`;
  return `${request.alias}: ${request.name}@${request.version}${from}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`;
}
