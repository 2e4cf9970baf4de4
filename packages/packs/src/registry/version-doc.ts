import { normalizeInterpreters } from '../interpreters/pack-interpreters.ts';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import { findLatestVersion } from '../resolve/resolve-version.ts';
import type { PackDoc, PackToolSummary, VersionDoc } from './registry-types.ts';

export interface BuildVersionDocInput {
  manifest: PackManifest;
  tools: readonly PackToolSummary[];
  tarball: string;
  integrity: string;
  size: number;
  fileCount: number;
  deprecated?: string;
  yanked?: boolean;
}

/** The VersionDoc a registry serves for one published version. */
export function buildVersionDoc(input: BuildVersionDocInput): VersionDoc {
  const doc: VersionDoc = {
    name: input.manifest.name,
    version: input.manifest.version,
    description: input.manifest.description,
    tags: [...input.manifest.tags],
    tools: input.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      ...(tool.inputExamples === undefined ? {} : { inputExamples: tool.inputExamples }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    })),
    env: input.manifest.env.map((env) => ({ ...env })),
    permissions: structuredClone(input.manifest.permissions),
    ...(input.manifest.interpreters === undefined ||
    Object.keys(input.manifest.interpreters).length === 0
      ? {}
      : { interpreters: normalizeInterpreters(input.manifest.interpreters) }),
    ...(input.manifest.license === undefined ? {} : { license: input.manifest.license }),
    ...(input.manifest.repository === undefined ? {} : { repository: input.manifest.repository }),
    dist: {
      tarball: input.tarball,
      integrity: input.integrity,
      size: input.size,
      fileCount: input.fileCount,
    },
  };
  if (input.deprecated !== undefined) doc.deprecated = input.deprecated;
  if (input.yanked === true) doc.yanked = true;
  return doc;
}

/** A PackDoc from its versions: name, description and tags come from the latest one. */
export function buildPackDoc(versions: readonly VersionDoc[]): PackDoc {
  const byVersion: Record<string, VersionDoc> = {};
  for (const doc of versions) byVersion[doc.version] = doc;
  const latest = findLatestVersion(byVersion);
  const head = (latest === undefined ? undefined : byVersion[latest]) ?? versions.at(-1);
  const doc: PackDoc = {
    name: head?.name ?? '',
    description: head?.description ?? '',
    tags: [...(head?.tags ?? [])],
    versions: byVersion,
  };
  if (latest !== undefined) doc.latest = latest;
  return doc;
}
