import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import { formatBytes, type PackLimits, type TarballFile } from '@toolpack/packs';
import { parseNuspec, type NuspecMetadata } from './nuspec.ts';

export interface NupkgContent {
  nuspec: NuspecMetadata;
  /** The package's own files (NuGet's packaging files left out), paths `/`-separated and checked. */
  files: TarballFile[];
}

export type ReadNupkgResult =
  { ok: true; content: NupkgContent } | { ok: false; problems: Diagnostic[] };

/** Files NuGet's packing adds around a package's content. */
const PACKAGING_FILE = /^(\[Content_Types\]\.xml$|_rels\/|package\/services\/metadata\/)/;
const LINK_MODE = 0o120000;
const TYPE_MASK = 0o170000;

/**
 * Reads an uploaded `.nupkg` in memory before anything is written: the size caps of a pack
 * (per file, in all, entries, and the real decompressed size, not the one the zip claims), no
 * links, no encrypted entries, and every name relative and inside the package (yauzl refuses
 * absolute names, `..` and backslashes). The one root `.nuspec` is parsed; NuGet's packaging
 * files are dropped.
 */
export async function readNupkg(bytes: Buffer, limits: PackLimits): Promise<ReadNupkgResult> {
  const problems: Diagnostic[] = [];
  const refuse = (message: string, path?: string) =>
    problems.push(
      createDiagnostic(
        'error',
        'E_TARBALL_UNSAFE',
        message,
        { path: path ?? 'package.nupkg' },
        'Publish the module folder with Publish-PSResource, or pack it with nuget pack.',
      ),
    );
  let zip: ZipFile;
  try {
    zip = await new Promise<ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(
        bytes,
        { lazyEntries: true, strictFileNames: true, validateEntrySizes: true },
        (error, opened) => (error ? reject(error) : resolve(opened)),
      ),
    );
  } catch (error) {
    refuse(`The upload is not a .nupkg (zip) file: ${(error as Error).message}.`);
    return { ok: false, problems };
  }
  const files: TarballFile[] = [];
  let nuspecText: string | undefined;
  let total = 0;
  let count = 0;
  const seen: SeenNames = { files: new Map(), folders: new Map() };
  try {
    for (let entry = await nextEntry(zip); entry !== undefined; entry = await nextEntry(zip)) {
      count += 1;
      if (count > limits.maxEntries) {
        refuse(`The package has more than ${limits.maxEntries} entries.`);
        break;
      }
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      if (((entry.externalFileAttributes >>> 16) & TYPE_MASK) === LINK_MODE) {
        refuse(`${name} is a link; a package holds only files.`, name);
        continue;
      }
      if ((entry.generalPurposeBitFlag & 0x1) !== 0) {
        refuse(`${name} is encrypted.`, name);
        continue;
      }
      if (PACKAGING_FILE.test(name)) continue;
      if (entry.uncompressedSize > limits.maxFileBytes) {
        refuse(
          `${name} is ${formatBytes(entry.uncompressedSize)} unpacked, over the ${formatBytes(limits.maxFileBytes)} a file may be.`,
          name,
        );
        continue;
      }
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes) {
        refuse(`The package unpacks to more than ${formatBytes(limits.maxTotalBytes)}.`);
        break;
      }
      const data = await readEntry(zip, entry);
      if (!name.includes('/') && name.toLowerCase().endsWith('.nuspec')) {
        if (nuspecText !== undefined)
          refuse('The package has more than one .nuspec at its root.', name);
        nuspecText = data.toString('utf8');
        continue;
      }
      const clash = findClash(name, seen);
      if (clash !== undefined) {
        refuse(clash, name);
        continue;
      }
      files.push({ path: name, data });
    }
  } catch (error) {
    refuse(`The package could not be read: ${(error as Error).message}.`);
  } finally {
    zip.close();
  }
  if (problems.length > 0) return { ok: false, problems };
  if (nuspecText === undefined) {
    refuse('The package has no .nuspec at its root, so it is not a NuGet package.');
    return { ok: false, problems };
  }
  const parsed = parseNuspec(nuspecText);
  if (!parsed.ok) {
    refuse(`The package's .nuspec was refused: ${parsed.message}.`);
    return { ok: false, problems };
  }
  return { ok: true, content: { nuspec: parsed.metadata, files } };
}

interface SeenNames {
  /** Folded name (case and Unicode normalisation, as macOS and Windows fold) to the name. */
  files: Map<string, string>;
  folders: Map<string, string>;
}

/**
 * Why `name` cannot sit beside the names seen so far: the same file twice, two names a
 * case-folding file system takes for one, or a name that is a file in one entry and a folder
 * in another. Each would make one file overwrite another, or the unpacking fail.
 */
function findClash(name: string, seen: SeenNames): string | undefined {
  const fold = (text: string) => text.normalize('NFC').toLowerCase();
  const key = fold(name);
  const earlier = seen.files.get(key) ?? seen.folders.get(key);
  if (earlier !== undefined) {
    return earlier === name
      ? `${name} appears twice.`
      : `${name} and ${earlier} would be one name on a file system that folds case (macOS, Windows).`;
  }
  const segments = name.split('/');
  for (let end = 1; end < segments.length; end += 1) {
    const folder = segments.slice(0, end).join('/');
    const file = seen.files.get(fold(folder));
    if (file !== undefined) return `${file} is a file, and ${name} puts a file inside it.`;
    seen.folders.set(fold(folder), folder);
  }
  seen.files.set(key, name);
  return undefined;
}

function nextEntry(zip: ZipFile): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: Entry) => settle(() => resolve(entry));
    const onEnd = () => settle(() => resolve(undefined));
    const onError = (error: Error) => settle(() => reject(error));
    const settle = (done: () => void) => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
      done();
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/** The entry's bytes; yauzl stops the stream with an error when they outgrow its declared size. */
function readEntry(zip: ZipFile, entry: Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', reject);
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}
