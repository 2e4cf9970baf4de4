import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import {
  MANIFEST_FILE,
  inspectTarball,
  parseManifest,
  type PackLimits,
  type PackManifest,
  type TarballFile,
} from '@toolpack/packs';

export interface PackUpload {
  manifest: PackManifest;
  files: TarballFile[];
}

export type ReadPackUploadResult =
  { ok: true; upload: PackUpload; warnings: Diagnostic[] } | { ok: false; problems: Diagnostic[] };

/**
 * Checks an uploaded `.tgz` with the same code `mcp pack add` unpacks with (gzip only, size
 * and ratio caps, no links, every path safe under `package/` and free of characters that
 * make it look like another name), then reads its manifest as a pack's. Every
 * problem is returned; nothing is written anywhere.
 */
export function readPackUpload(
  bytes: Uint8Array,
  limits: Partial<PackLimits>,
): ReadPackUploadResult {
  const inspected = inspectTarball(bytes, { limits, label: 'The tarball' });
  if (inspected.files === undefined) return { ok: false, problems: inspected.problems };
  const manifestFile = inspected.files.find((file) => file.path === MANIFEST_FILE);
  if (manifestFile === undefined) {
    return {
      ok: false,
      problems: [
        createDiagnostic(
          'error',
          'E_PACK_NO_MANIFEST',
          `The tarball has no package/${MANIFEST_FILE}, so it is not a pack.`,
          { path: MANIFEST_FILE },
          'Make the tarball with `mcp pack publish` (or `mcp pack pack`) from the folder that holds toolpack.yaml.',
        ),
      ],
    };
  }
  const parsed = parseManifest(manifestFile.data.toString('utf8'), {
    path: MANIFEST_FILE,
    kind: 'pack',
  });
  const warnings = parsed.diagnostics.filter((d) => d.severity !== 'error');
  if (parsed.manifest === undefined)
    return { ok: false, problems: parsed.diagnostics.filter((d) => d.severity === 'error') };
  return { ok: true, upload: { manifest: parsed.manifest, files: inspected.files }, warnings };
}
