import { gzipSync } from 'node:zlib';
import { Header, Pax } from 'tar';

/** One entry of a hand-made tarball; anything a hostile tarball could hold. */
export interface RawTarEntry {
  path: string;
  type?:
    'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'BlockDevice' | 'FIFO';
  data?: string | Buffer;
  linkpath?: string;
  mode?: number;
  /** Write the path in a pax header even when it fits the ustar fields. */
  pax?: boolean;
}

/**
 * Builds a tarball from raw entries with tar's low-level Header, bypassing every check a
 * packer makes: for tests of what an unpacker must refuse.
 */
export function buildTarball(
  entries: readonly RawTarEntry[],
  options: { gzip?: boolean } = {},
): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = entry.data === undefined ? Buffer.alloc(0) : Buffer.from(entry.data);
    const type = entry.type ?? 'File';
    const header = new Header({
      path: entry.path,
      mode: entry.mode ?? (type === 'Directory' ? 0o755 : 0o644),
      uid: 0,
      gid: 0,
      size: type === 'File' ? body.length : 0,
      mtime: new Date(0),
      type,
      ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }),
    });
    const needPax = header.encode();
    if (needPax || entry.pax) {
      blocks.push(
        new Pax({
          path: entry.path,
          ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }),
          mtime: new Date(0),
        }).encode(),
      );
    }
    blocks.push(header.block as Buffer);
    if (type === 'File' && body.length > 0) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return options.gzip === false ? tar : gzipSync(tar);
}

/** A minimal valid pack manifest for hand-made tarballs. */
export function packManifestText(name: string, version: string): string {
  return `name: ${name}\nversion: ${version}\ndescription: A test pack.\ntags: [test]\nsources:\n  - scripts: scripts\n`;
}
