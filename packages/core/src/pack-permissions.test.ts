import { describe, expect, it } from 'vitest';
import {
  LEAST_PERMISSIONS,
  describePermissions,
  findPermissionWidening,
  packPermissionsSchema,
} from './pack-permissions.ts';
import { sourceSpecSchema } from './source-spec.ts';

const parse = (input: unknown) => packPermissionsSchema.parse(input);

describe('packPermissionsSchema', () => {
  it('reads nothing as the least permissions', () => {
    expect(parse({})).toEqual(LEAST_PERMISSIONS);
  });

  it('normalises: sorted, unique, writable roots readable, the own folder implicit, hosts lower case', () => {
    expect(
      parse({
        filesystem: { read: ['project/docs', 'pack', 'project/docs'], write: ['temp'] },
        network: { access: 'any', hosts: ['API.example.com', '*.atlassian.net:443'] },
        env: ['B_TOKEN', 'A_TOKEN'],
        subprocess: true,
      }),
    ).toEqual({
      filesystem: { read: ['project/docs', 'temp'], write: ['temp'] },
      network: { access: 'any', hosts: ['*.atlassian.net:443', 'api.example.com'] },
      env: ['A_TOKEN', 'B_TOKEN'],
      subprocess: true,
    });
    expect(parse({ network: 'any' }).network).toEqual({ access: 'any', hosts: [] });
  });

  it.each([
    [{ filesystem: { read: ['/home/me/.ssh'] } }, 'is not a filesystem root'],
    [{ filesystem: { read: ['project/../..'] } }, 'is not a folder inside the project'],
    [{ filesystem: { write: ['pack'] } }, 'never writable'],
    [{ network: 'some' }, 'is not a network access'],
    [{ network: { hosts: ['example.com'] } }, 'only reachable with access: any'],
    [{ network: { access: 'any', hosts: ['http://example.com'] } }, 'is not a host name'],
    [{ env: ['NOT-A-NAME'] }, 'is not an environment variable name'],
    [{ filesytem: {} }, 'filesytem'],
  ])('refuses %j', (input, message) => {
    const result = packPermissionsSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain(message);
  });
});

describe('findPermissionWidening', () => {
  const networked = parse({ network: 'any', env: ['TOKEN'] });

  it('is empty for the same or a narrower grant', () => {
    expect(findPermissionWidening(networked, networked)).toEqual([]);
    expect(findPermissionWidening(networked, LEAST_PERMISSIONS)).toEqual([]);
    expect(
      findPermissionWidening(
        parse({ filesystem: { read: ['project'] } }),
        parse({ filesystem: { read: ['project/docs'] } }),
      ),
    ).toEqual([]);
  });

  it('names everything wider, one line each', () => {
    expect(
      findPermissionWidening(
        LEAST_PERMISSIONS,
        parse({
          filesystem: { read: ['project'], write: ['project/out'] },
          network: { access: 'any', hosts: ['example.com'] },
          env: ['TOKEN'],
          subprocess: true,
        }),
      ),
    ).toEqual([
      'read the project',
      'read out/ in the project',
      'write out/ in the project',
      'network access (any host)',
      'reach example.com',
      'read the environment variable TOKEN',
      'start other programs',
    ]);
  });
});

it('describePermissions says what a person approves', () => {
  expect(describePermissions(LEAST_PERMISSIONS)).toEqual([
    'files: read its own folder; write nothing',
    'network: none',
    'environment: none',
    'programs: starts none',
  ]);
  expect(
    describePermissions(
      parse({
        filesystem: { read: ['project'], write: ['temp'] },
        network: { access: 'any', hosts: ['example.com'] },
        env: ['TOKEN'],
        subprocess: true,
      }),
    ),
  ).toEqual([
    'files: read its own folder, the project; read and write the temporary folder',
    'network: any host (says it reaches example.com)',
    'environment: TOKEN',
    'programs: may start other programs',
  ]);
});

it('a project source takes permissions only beside sandbox: true', () => {
  expect(sourceSpecSchema.safeParse({ scripts: 'x', permissions: {} }).success).toBe(false);
  expect(
    sourceSpecSchema.parse({ scripts: 'x', sandbox: true, permissions: { network: 'any' } })
      .permissions?.network.access,
  ).toBe('any');
});
