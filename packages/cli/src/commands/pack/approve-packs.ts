import { createInterface } from 'node:readline';
import {
  ToolpackError,
  describePermissions,
  findPermissionWidening,
  packPermissionsSchema,
  type PackPermissions,
  type PackPermissionsInput,
} from '@toolpack/core';
import { describeInterpreters, type ApprovalRequest, type ApprovePack } from '@toolpack/packs';

/** Whether the OS sandbox can be had here (runners' `describeSandbox`). */
export interface SandboxStatus {
  available: boolean;
  reason: string;
}

/** How a pack command approves what packs ask for: `--yes`, `--allow`, or asking on a terminal. */
export interface ApprovalFlags {
  yes?: boolean;
  allow?: string;
}

const GRANTS_HELP =
  'read:<root>, write:<root> (root: project, project/<folder>, temp), network, host:<name>, env:<NAME>, subprocess';

/**
 * `--allow read:project,write:temp,network,env:JIRA_API_TOKEN,subprocess` as permissions.
 * `network` (any host) covers whatever hosts a pack names; `host:<name>` grants network to
 * that host only.
 */
export function parseAllowGrants(text: string): PackPermissions {
  const read: string[] = [];
  const write: string[] = [];
  const hosts: string[] = [];
  const env: string[] = [];
  let network: 'none' | 'any' = 'none';
  let subprocess = false;
  for (const grant of text.split(',').map((g) => g.trim())) {
    const [kind, value] = splitGrant(grant);
    if (kind === 'read' && value !== undefined) read.push(value);
    else if (kind === 'write' && value !== undefined) write.push(value);
    else if (kind === 'env' && value !== undefined) env.push(value);
    else if (kind === 'host' && value !== undefined) {
      hosts.push(value);
      network = 'any';
    } else if (kind === 'network' && (value === undefined || value === 'any')) network = 'any';
    else if (kind === 'network' && value === 'none') continue;
    else if (kind === 'subprocess' && value === undefined) subprocess = true;
    else
      throw new ToolpackError('E_USAGE', `--allow: ${JSON.stringify(grant)} is not a grant.`, {
        hint: `Grants are ${GRANTS_HELP}, separated by commas.`,
      });
  }
  const written: PackPermissionsInput = {
    filesystem: { read, write },
    network: { access: network, hosts },
    env,
    subprocess,
  };
  const parsed = packPermissionsSchema.safeParse(written);
  if (!parsed.success) {
    throw new ToolpackError(
      'E_USAGE',
      `--allow: ${parsed.error.issues.map((issue) => issue.message).join('; ')}.`,
      { hint: `Grants are ${GRANTS_HELP}, separated by commas.` },
    );
  }
  return parsed.data;
}

function splitGrant(grant: string): [string, string | undefined] {
  const colon = grant.indexOf(':');
  return colon === -1 ? [grant, undefined] : [grant.slice(0, colon), grant.slice(colon + 1)];
}

/**
 * What `grant` does not cover of what `request` asks for (empty: it is within the grant). No
 * grant covers a new or changed interpreter: it runs the pack's tools as the pack says, so
 * it takes `--yes` or a person.
 */
export function findBeyondGrant(grant: PackPermissions, request: ApprovalRequest): string[] {
  const anyHost = grant.network.access === 'any' && grant.network.hosts.length === 0;
  return [
    ...findPermissionWidening(
      anyHost
        ? { ...grant, network: { access: 'any', hosts: request.permissions.network.hosts } }
        : grant,
      request.permissions,
    ),
    ...request.interpreterWidening,
  ];
}

/** What a person reads before approving: the pack, its permissions, what changed, the sandbox. */
export function renderApprovalRequest(request: ApprovalRequest, sandbox: SandboxStatus): string {
  const from = request.previousVersion === undefined ? '' : ` (from ${request.previousVersion})`;
  const lines = [
    `${request.name}@${request.version}${from}${request.alias === request.name ? '' : ` as ${request.alias}`} asks that its tools may:`,
    ...describePermissions(request.permissions).map((line) => `  ${line}`),
    ...describeInterpreters(request.interpreters).map((line) => `  ${line}`),
  ];
  if (request.approved !== undefined && request.widening.length > 0)
    lines.push('More than you approved before:', ...request.widening.map((line) => `  + ${line}`));
  const { added, removed, changed } = request.tools;
  if (!request.pinned) {
    if (added.length > 0) lines.push(`Tools: ${added.join(', ')}`);
  } else {
    if (added.length > 0) lines.push(`New tools: ${added.join(', ')}`);
    if (changed.length > 0)
      lines.push(`Changed tools (description, parameters or hints): ${changed.join(', ')}`);
    if (removed.length > 0) lines.push(`Removed tools: ${removed.join(', ')}`);
  }
  if (request.unread.length > 0)
    lines.push(
      'Some tools could not be read, so they are not compared (their pins are kept):',
      ...request.unread.map((message) => `  ${message}`),
    );
  lines.push(
    sandbox.available
      ? `Its tools run in the sandbox, confined to these permissions (${sandbox.reason}).`
      : `The sandbox cannot be had on this machine (${sandbox.reason}): its tools will run with your full rights, whatever they declare.`,
  );
  return `${lines.join('\n')}\n`;
}

/** Where approval text goes (the command's stderr: stdout stays the result a script reads). */
export interface TextOutput {
  write(text: string): unknown;
}

/**
 * Writes `question` and reads one line of `input`; only y or yes approves (an empty answer,
 * anything else, or the input ending is no). The terminal itself echoes and edits the line.
 */
export async function askYesNo(options: {
  input: NodeJS.ReadableStream;
  output: TextOutput;
  question: string;
}): Promise<boolean> {
  options.output.write(options.question);
  const readline = createInterface({ input: options.input, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => {
      readline.once('line', resolve);
      readline.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    readline.close();
  }
}

/**
 * The approve callback of a pack command, or undefined when there is no one to ask (no
 * terminal, no `--yes`, no `--allow`): the library then refuses with E_APPROVAL_REQUIRED.
 * Every request is printed first, so a log shows what `--yes` approved.
 */
export function createApprover(options: {
  flags: ApprovalFlags;
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: TextOutput;
  /** Probed only when something is to be approved. */
  sandbox: () => SandboxStatus | Promise<SandboxStatus>;
}): ApprovePack | undefined {
  const { flags, output, sandbox } = options;
  if (flags.yes && flags.allow !== undefined)
    throw new ToolpackError('E_USAGE', '--yes and --allow cannot be used together.', {
      hint: '--yes approves whatever the packs ask for; --allow only what is within its grants.',
    });
  const grant = flags.allow === undefined ? undefined : parseAllowGrants(flags.allow);
  if (!flags.yes && grant === undefined && options.input.isTTY !== true) return undefined;
  return async (request) => {
    output.write(renderApprovalRequest(request, await sandbox()));
    if (flags.yes) {
      output.write('Approved (--yes).\n');
      return true;
    }
    if (grant !== undefined) {
      const beyond = findBeyondGrant(grant, request);
      if (beyond.length > 0) {
        throw new ToolpackError(
          'E_APPROVAL_DECLINED',
          `${request.name}@${request.version} asks for more than --allow grants (${beyond.join(', ')}), so nothing was installed.`,
          { hint: 'Add those grants to --allow if you agree to them, or leave the pack out.' },
        );
      }
      output.write('Approved (within --allow).\n');
      return true;
    }
    return askYesNo({ input: options.input, output, question: 'Approve? [y/N] ' });
  };
}
