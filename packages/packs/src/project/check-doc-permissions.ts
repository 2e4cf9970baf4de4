import { ToolpackError, describePermissions, type PackPermissions } from '@toolpack/core';
import { areInterpretersEqual, describeInterpreters } from '../interpreters/pack-interpreters.ts';
import type { VersionDoc } from '../registry/registry-types.ts';
import { arePermissionsEqual } from './review-pack.ts';

/**
 * The registry's VersionDoc is what a user read on the gallery before installing; the
 * tarball's toolpack.yaml is what is approved and enforced. When the doc states permissions
 * and they differ, the registry (or its publisher) shows one thing and ships another: refuse.
 * A doc without permissions (an older registry) says nothing to contradict.
 */
export function assertDocPermissions(
  doc: VersionDoc,
  permissions: PackPermissions,
  interpreters?: Readonly<Record<string, readonly string[]>>,
): void {
  // A doc states interpreters since registries carry them; one from before says nothing.
  if (doc.interpreters !== undefined && !areInterpretersEqual(doc.interpreters, interpreters)) {
    const show = (map: Readonly<Record<string, readonly string[]>> | undefined) =>
      describeInterpreters(map)
        .map((line) => `    ${line}`)
        .join('\n') || '    no interpreters';
    throw new ToolpackError(
      'E_PACK_PERMISSIONS_MISMATCH',
      `The registry says ${doc.name}@${doc.version} has\n${show(doc.interpreters)}\nbut the toolpack.yaml in its tarball has\n${show(interpreters)}\nso nothing was installed.`,
      { hint: "Tell the registry's owner; do not install this version until they agree." },
    );
  }
  if (doc.permissions === undefined || arePermissionsEqual(doc.permissions, permissions)) return;
  const show = (p: PackPermissions) =>
    describePermissions(p)
      .map((line) => `    ${line}`)
      .join('\n');
  throw new ToolpackError(
    'E_PACK_PERMISSIONS_MISMATCH',
    `The registry says ${doc.name}@${doc.version} may\n${show(doc.permissions)}\nbut the toolpack.yaml in its tarball asks for\n${show(permissions)}\nso nothing was installed.`,
    { hint: "Tell the registry's owner; do not install this version until they agree." },
  );
}
