import {
  isZipArchive,
  readNupkgAsPack,
  type ReadNupkgAsPackOptions,
} from '../nuget/nupkg-to-pack.ts';
import { readPackTarball, type TarballFile } from '../tarball/read-tarball.ts';

/**
 * The checked files of a pack's downloaded archive, whichever it is: a pack `.tgz`, or a
 * PowerShell module's `.nupkg` from a NuGet feed (read as a pack by `readNupkgAsPack`). Both
 * throw `E_TARBALL_UNSAFE` with every problem before anything is written.
 */
export async function readPackArchive(
  bytes: Uint8Array,
  options: Omit<ReadNupkgAsPackOptions, 'label'>,
): Promise<TarballFile[]> {
  const label = `${options.name}@${options.version}`;
  if (isZipArchive(bytes)) {
    const pack = await readNupkgAsPack(bytes, { ...options, label: `The package of ${label}` });
    return pack.files;
  }
  return readPackTarball(bytes, {
    label: `The tarball of ${label}`,
    ...(options.limits ? { limits: options.limits } : {}),
  });
}
