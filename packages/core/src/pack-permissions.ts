import { z } from 'zod';

/**
 * What a pack's tools (or a project source with `sandbox: true`) may touch. Normalised:
 * lists sorted and without duplicates, every writable root also readable, so two equal grants
 * compare equal as JSON (`toolpack.lock` records the approved one).
 *
 * Filesystem roots:
 * - `project`: the project root, `project/<folder>`: one folder inside it;
 * - `temp`: the machine's temporary folder (without it a tool gets a private, empty `/tmp`
 *   that ends with it).
 * The tools' own folder (the installed pack) is always readable and never writable.
 */
export interface PackPermissions {
  filesystem: { read: string[]; write: string[] };
  network: {
    access: 'none' | 'any';
    /**
     * Hosts the pack says it will reach: recorded, approved and shown, but not enforced (a
     * private network namespace can cut the network, not filter it by name).
     */
    hosts: string[];
  };
  /** Environment variables its tools may read (a pack's `env:` entries are added to these). */
  env: string[];
  /** Whether its tools start other programs. Recorded and shown; see docs/permissions.md. */
  subprocess: boolean;
}

/** The least a pack gets when it declares nothing: read its own folder, no network, no env. */
export const LEAST_PERMISSIONS: PackPermissions = Object.freeze({
  filesystem: Object.freeze({ read: [], write: [] }),
  network: Object.freeze({ access: 'none', hosts: [] }),
  env: [],
  subprocess: false,
}) as PackPermissions;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A host name or `*.` wildcard, optionally with a port: `api.example.com`, `*.atlassian.net:443`.
const HOST =
  /^(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(:\d{1,5})?$/;

/** `null` when `root` is a filesystem root a pack may name; else what is wrong with it. */
export function findFilesystemRootProblem(root: string, access: 'read' | 'write'): string | null {
  if (root === 'pack') {
    return access === 'write'
      ? "a pack's own folder is never writable: it must stay what was installed and checked"
      : null;
  }
  if (root === 'project' || root === 'temp') return null;
  if (root.startsWith('project/')) {
    const rest = root.slice('project/'.length);
    const segments = rest.split('/');
    if (
      rest === '' ||
      rest.includes('\\') ||
      segments.some((s) => s === '' || s === '.' || s === '..')
    ) {
      return `${JSON.stringify(root)} is not a folder inside the project: write project/<folder>, without "..", "." or empty parts`;
    }
    return null;
  }
  return `${JSON.stringify(root)} is not a filesystem root: use project, project/<folder> or temp (the pack's own folder is always readable)`;
}

const rootList = (access: 'read' | 'write') =>
  z.array(z.string()).superRefine((roots, context) => {
    roots.forEach((root, index) => {
      const problem = findFilesystemRootProblem(root, access);
      if (problem !== null) context.addIssue({ code: 'custom', message: problem, path: [index] });
    });
  });

const networkAccess = z.enum(['none', 'any'], {
  error: (issue) => `${JSON.stringify(issue.input)} is not a network access: use none or any`,
});

/**
 * `permissions:` as written in a pack's `toolpack.yaml` (or beside `sandbox: true` on a
 * project source), normalised into `PackPermissions`. Unknown keys are errors: a misspelt
 * grant must not be read as no grant.
 */
export const packPermissionsSchema = z
  .strictObject({
    filesystem: z
      .strictObject({
        read: rootList('read').optional(),
        write: rootList('write').optional(),
      })
      .optional(),
    network: z
      .union([
        networkAccess,
        z.strictObject({
          access: networkAccess.optional(),
          hosts: z
            .array(
              z.string().regex(HOST, {
                error: (issue) =>
                  `${JSON.stringify(issue.input)} is not a host name (e.g. api.example.com or *.example.com:443)`,
              }),
            )
            .optional(),
        }),
      ])
      .optional(),
    env: z
      .array(
        z.string().regex(ENV_NAME, {
          error: (issue) => `${JSON.stringify(issue.input)} is not an environment variable name`,
        }),
      )
      .optional(),
    subprocess: z.boolean({ error: 'subprocess is true or false' }).optional(),
  })
  .superRefine((written, context) => {
    const network = written.network;
    if (
      typeof network === 'object' &&
      network.access !== 'any' &&
      (network.hosts ?? []).length > 0
    ) {
      context.addIssue({
        code: 'custom',
        message: 'hosts are only reachable with access: any (add it, or drop the hosts)',
        path: ['network', 'access'],
      });
    }
  })
  .transform((written): PackPermissions => {
    const network = written.network;
    const access = typeof network === 'string' ? network : (network?.access ?? 'none');
    const write = (written.filesystem?.write ?? []).filter((root) => root !== 'pack');
    return normalizePermissions({
      filesystem: {
        read: (written.filesystem?.read ?? []).filter((root) => root !== 'pack'),
        write,
      },
      network: { access, hosts: typeof network === 'object' ? (network.hosts ?? []) : [] },
      env: written.env ?? [],
      subprocess: written.subprocess ?? false,
    });
  });

/** `permissions:` as the schema accepts it (before normalising). */
export type PackPermissionsInput = z.input<typeof packPermissionsSchema>;

const sortUnique = (values: readonly string[]): string[] => [...new Set(values)].sort();

/** Sorted, deduplicated, writable roots also readable, hosts lower-cased. */
export function normalizePermissions(permissions: PackPermissions): PackPermissions {
  const write = sortUnique(permissions.filesystem.write);
  return {
    filesystem: { read: sortUnique([...permissions.filesystem.read, ...write]), write },
    network: {
      access: permissions.network.access,
      hosts: sortUnique(permissions.network.hosts.map((host) => host.toLowerCase())),
    },
    env: sortUnique(permissions.env),
    subprocess: permissions.subprocess,
  };
}

/** Whether the granted root `granted` includes `root` (`project` includes `project/docs`). */
function coversRoot(granted: string, root: string): boolean {
  return granted === root || (granted === 'project' && root.startsWith('project/'));
}

/**
 * What `wanted` asks for beyond `approved`, one readable line each (`network: any`,
 * `read project`, `env JIRA_TOKEN`); empty when `wanted` asks for nothing more. What an
 * update, an install or `--allow` compares.
 */
export function findPermissionWidening(
  approved: PackPermissions,
  wanted: PackPermissions,
): string[] {
  const lines: string[] = [];
  for (const access of ['read', 'write'] as const) {
    for (const root of wanted.filesystem[access]) {
      if (!approved.filesystem[access].some((granted) => coversRoot(granted, root)))
        lines.push(`${access} ${describeRoot(root)}`);
    }
  }
  if (wanted.network.access === 'any' && approved.network.access !== 'any')
    lines.push('network access (any host)');
  for (const host of wanted.network.hosts) {
    if (!approved.network.hosts.includes(host)) lines.push(`reach ${host}`);
  }
  for (const name of wanted.env) {
    if (!approved.env.includes(name)) lines.push(`read the environment variable ${name}`);
  }
  if (wanted.subprocess && !approved.subprocess) lines.push('start other programs');
  return lines;
}

function describeRoot(root: string): string {
  if (root === 'project') return 'the project';
  if (root === 'temp') return 'the temporary folder';
  return `${root.slice('project/'.length)}/ in the project`;
}

/**
 * The permissions as the lines a person approves (the CLI's prompt, `mcp pack audit`, the
 * gallery's pack page): files, network, environment, programs.
 */
export function describePermissions(permissions: PackPermissions): string[] {
  const { read, write } = permissions.filesystem;
  const readOnly = read.filter((root) => !write.includes(root));
  const files = [
    `read its own folder${readOnly.length > 0 ? `, ${readOnly.map(describeRoot).join(', ')}` : ''}`,
    write.length > 0 ? `read and write ${write.map(describeRoot).join(', ')}` : 'write nothing',
  ];
  const hosts = permissions.network.hosts;
  return [
    `files: ${files.join('; ')}`,
    permissions.network.access === 'any'
      ? `network: any host${hosts.length > 0 ? ` (says it reaches ${hosts.join(', ')})` : ''}`
      : 'network: none',
    `environment: ${permissions.env.length > 0 ? permissions.env.join(', ') : 'none'}`,
    `programs: ${permissions.subprocess ? 'may start other programs' : 'starts none'}`,
  ];
}
