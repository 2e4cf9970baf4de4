import { createRequire } from 'node:module';
import type * as Yauzl from 'yauzl';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import { checkEntryName, collectProblems, findPrefixConflicts } from '../tarball/archive-paths.ts';
import { formatBytes, resolveLimits, type PackLimits } from '../tarball/limits.ts';
import type { TarballFile } from '../tarball/read-tarball.ts';
import { parseNuspec, type Nuspec } from './parse-nuspec.ts';

// Loaded on first use, like tar: most commands never open a .nupkg.
const require = createRequire(import.meta.url);
let yauzl: typeof Yauzl | undefined;
const loadYauzl = (): typeof Yauzl => (yauzl ??= require('yauzl') as typeof Yauzl);

export interface NupkgInspection {
  /** Every file, paths relative to the package root; undefined when anything was refused. */
  files: TarballFile[] | undefined;
  problems: Diagnostic[];
}

/** A package's own files and its parsed `.nuspec`; undefined when anything was refused. */
export interface NupkgContent {
  nuspec: Nuspec;
  /** Paths relative to the package root, without NuGet's packaging files. */
  files: TarballFile[];
}

export type NupkgContentResult =
  { content: NupkgContent; problems: [] } | { content: undefined; problems: Diagnostic[] };

/**
 * What NuGet adds around a package's content; none of it is the module. Only `package/`'s
 * `services/metadata/` is NuGet's: a module may have a folder named `package` of its own.
 */
const PACKAGING_FILE =
  /^(\[Content_Types\]\.xml|_rels\/.*|package\/services\/metadata\/.*|\.signature\.p7s|[^/]+\.nuspec)$/i;

/** The ratio cap applies above this much output, as for a tarball. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
const UTF8_NAME_FLAG = 0x800;
const UNIX_MADE_BY = 3;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/**
 * Reads a `.nupkg` (a zip) entirely in memory and checks it before anything is written, by the
 * rules a pack tarball is held to: caps on its size, on the entries the central directory
 * declares, on each file and on the total (yauzl then refuses a stream longer than its
 * declared size, so a lying size cannot get past them); no links, devices or encrypted
 * entries; every path relative, without `..`, with no character Windows or a reader would
 * take for another, and unique ignoring case. NuGet writes names percent-escaped (OPC), so
 * they are checked as they will be written: unescaped.
 */
export async function inspectNupkg(
  bytes: Uint8Array,
  options: { limits?: Partial<PackLimits>; label?: string } = {},
): Promise<NupkgInspection> {
  const limits = resolveLimits(options.limits);
  const label = options.label ?? 'The package';
  const { problems, fail } = collectProblems(label);
  const stop = (code: Diagnostic['code'], message: string): NupkgInspection => {
    fail(code, message);
    return { files: undefined, problems };
  };
  if (bytes.length > limits.maxTarballBytes) {
    return stop(
      'E_TARBALL_TOO_LARGE',
      `${label} is ${formatBytes(bytes.length)}; the limit is ${formatBytes(limits.maxTarballBytes)}.`,
    );
  }
  let zip: Yauzl.ZipFile;
  try {
    zip = await openZip(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  } catch (error) {
    return stop('E_TARBALL_FORMAT', `${label} is not a valid .nupkg (zip): ${errorText(error)}.`);
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      return stop(
        'E_TARBALL_TOO_MANY_ENTRIES',
        `${label} has ${zip.entryCount} entries; the limit is ${limits.maxEntries}.`,
      );
    }
    let entries: Yauzl.Entry[];
    try {
      entries = await listEntries(zip);
    } catch (error) {
      return stop('E_TARBALL_FORMAT', `${label} is a damaged zip: ${errorText(error)}.`);
    }
    const seen = new Map<string, string>();
    const accepted: { entry: Yauzl.Entry; path: string }[] = [];
    let total = 0;
    for (const entry of entries) {
      const name = decodeEntryName(entry);
      if (typeof name !== 'string') {
        fail('E_TARBALL_PATH', `An entry's name ${name.problem}.`);
        continue;
      }
      const isDirectory = name.endsWith('/');
      const type = entryType(entry);
      if (type !== 'file' && type !== 'directory') {
        fail(
          'E_TARBALL_ENTRY_TYPE',
          `${name} is ${type === 'symlink' ? 'a symbolic link' : 'a special file (device, FIFO or socket)'}; packs hold only files and folders.`,
          name,
        );
        continue;
      }
      if (entry.isEncrypted()) {
        fail('E_TARBALL_FORMAT', `${name} is encrypted; a package is read as it is.`, name);
        continue;
      }
      const relative = checkEntryName(name, { isDirectory, prefix: '', seen, fail });
      if (relative === undefined) continue;
      if (isDirectory) continue;
      if (entry.uncompressedSize > limits.maxFileBytes) {
        fail(
          'E_TARBALL_FILE_TOO_LARGE',
          `${relative} is ${formatBytes(entry.uncompressedSize)}; one file may be at most ${formatBytes(limits.maxFileBytes)}.`,
          name,
        );
        continue;
      }
      total += entry.uncompressedSize;
      accepted.push({ entry, path: relative });
    }
    if (total > limits.maxTotalBytes) {
      fail(
        'E_TARBALL_TOO_LARGE',
        `${label} unpacks to more than ${formatBytes(limits.maxTotalBytes)}.`,
      );
    } else if (total > RATIO_FLOOR_BYTES && total > limits.maxRatio * bytes.length) {
      fail(
        'E_TARBALL_RATIO',
        `${label} decompresses to more than ${limits.maxRatio} times its size (a decompression bomb?); it was not unpacked.`,
      );
    }
    if (entries.length === 0) fail('E_TARBALL_EMPTY', `${label} holds no files.`);
    findPrefixConflicts(seen, fail);
    if (problems.length > 0) return { files: undefined, problems };
    const files: TarballFile[] = [];
    for (const { entry, path } of accepted) {
      try {
        files.push({ path, data: await readEntry(zip, entry) });
      } catch (error) {
        fail('E_TARBALL_FORMAT', `${path} cannot be read: ${errorText(error)}.`, path);
      }
    }
    return problems.length > 0 ? { files: undefined, problems } : { files, problems };
  } finally {
    zip.close();
  }
}

/**
 * A `.nupkg` checked by `inspectNupkg`, its one root `.nuspec` parsed (`parseNuspec`), and
 * its content without what NuGet's packing adds: what both `mcp pack add` and a gallery
 * receiving an upload read of a package.
 */
export async function readNupkgContent(
  bytes: Uint8Array,
  options: { limits?: Partial<PackLimits>; label?: string } = {},
): Promise<NupkgContentResult> {
  const inspected = await inspectNupkg(bytes, options);
  if (inspected.files === undefined) return { content: undefined, problems: inspected.problems };
  const label = options.label ?? 'The package';
  const nuspecs = inspected.files.filter((file) => /^[^/]+\.nuspec$/i.test(file.path));
  const nuspec = nuspecs.length === 1 ? parseNuspec(nuspecs[0]!.data.toString('utf8')) : undefined;
  if (nuspec === undefined) {
    const which =
      nuspecs.length === 0
        ? 'has no .nuspec at its root'
        : nuspecs.length > 1
          ? 'has more than one .nuspec at its root'
          : `has a .nuspec (${nuspecs[0]!.path}) that is not well-formed XML, declares a DOCTYPE or entities, or has no <metadata> with an <id> and a <version>`;
    return {
      content: undefined,
      problems: [
        createDiagnostic(
          'error',
          'E_TARBALL_UNSAFE',
          `${label} ${which}; it is not a NuGet package.`,
          { path: nuspecs.length === 1 ? `${label}:${nuspecs[0]!.path}` : label },
        ),
      ],
    };
  }
  return {
    content: { nuspec, files: inspected.files.filter((file) => !PACKAGING_FILE.test(file.path)) },
    problems: [],
  };
}

function openZip(buffer: Buffer): Promise<Yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    loadYauzl().fromBuffer(
      buffer,
      // Names are decoded and checked here (all problems listed, not the first one thrown);
      // sizes are held to what the central directory declares.
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, strictFileNames: false },
      (error, zip) => (error ? reject(error) : resolve(zip)),
    );
  });
}

function listEntries(zip: Yauzl.ZipFile): Promise<Yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Yauzl.Entry[] = [];
    zip.on('entry', (entry: Yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    // Later errors reach the read that meets them (its stream or callback); one the zip itself
    // emits after this would otherwise have no listener and end the process.
    zip.on('error', reject);
    zip.readEntry();
  });
}

function readEntry(zip: Yauzl.ZipFile, entry: Yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () => resolve(Buffer.concat(chunks)));
      stream.once('error', reject);
    });
  });
}

/** UTF-8 when the entry says so, else ASCII only (what .NET writes); then OPC-unescaped. */
function decodeEntryName(entry: Yauzl.Entry): string | { problem: string } {
  const raw = entry.fileName as unknown as Buffer;
  let name: string;
  if ((entry.generalPurposeBitFlag & UTF8_NAME_FLAG) !== 0) {
    try {
      name = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      return { problem: 'is not valid UTF-8' };
    }
  } else {
    if (raw.some((byte) => byte >= 0x80))
      return { problem: `${JSON.stringify(raw.toString('latin1'))} is in an unknown encoding` };
    name = raw.toString('ascii');
  }
  try {
    return decodeURIComponent(name);
  } catch {
    return { problem: `${JSON.stringify(name)} has a malformed %-escape` };
  }
}

function entryType(entry: Yauzl.Entry): 'file' | 'directory' | 'symlink' | 'special' {
  if (entry.versionMadeBy >> 8 !== UNIX_MADE_BY) return 'file';
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (mode === 0 || mode === S_IFREG) return 'file';
  if (mode === S_IFDIR) return 'directory';
  return mode === S_IFLNK ? 'symlink' : 'special';
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
}
