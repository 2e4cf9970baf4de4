import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readDiscoveryVersion } from '../package-assets.ts';
import type { ParseCache } from '../types.ts';

const FORMAT = 1;
/** A file modified this close to the moment its entry was stored may have kept size and mtime: re-hash it. */
const RACY_WINDOW_MS = 2_000;
const UNUSED_ENTRY_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * How stale an entry's `usedAt` may get before a hit refreshes it: it only decides the
 * 30-day eviction, and refreshing it on every hit made every cached start rewrite the whole
 * cache file (1.1 MB for 1,000 scripts).
 */
const USED_AT_RESOLUTION_MS = 24 * 60 * 60 * 1000;

interface FileStamp {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string;
}

interface CacheEntry {
  files: FileStamp[];
  value: unknown;
  storedAt: number;
  usedAt: number;
}

interface CacheDocument {
  format: number;
  /** The @toolpack/discovery version that parsed the entries. */
  parser: string;
  entries: Record<string, CacheEntry>;
}

export interface FileParseCacheOptions {
  /** Folder of the cache file, normally `<project>/.toolpack/cache`. */
  dir: string;
  /**
   * What produced the entries; a cache written by another one starts empty. Default: the
   * running @toolpack/discovery version, so an upgrade never serves what an older parser read
   * from files that did not change (on top of each adapter's own `kind@N` parser version).
   */
  parser?: string;
}

export interface FileParseCacheStats {
  hits: number;
  misses: number;
}

/**
 * The discovery cache: one JSON document under `.toolpack/cache/`, loaded once, written
 * once (atomically) by `flush`. An entry is served only while every file it was parsed
 * from has the same size and mtime — and, for files touched around the time the entry was
 * stored, the same content hash — so an edit is never answered with a stale definition.
 */
export class FileParseCache implements ParseCache {
  readonly stats: FileParseCacheStats = { hits: 0, misses: 0 };
  readonly #file: string;
  readonly #parser: string;
  #document: CacheDocument | undefined;
  #loading: Promise<CacheDocument> | undefined;
  #dirty = false;

  constructor(options: FileParseCacheOptions) {
    this.#file = path.join(options.dir, `discovery-v${FORMAT}.json`);
    this.#parser = options.parser ?? readDiscoveryVersion();
  }

  async read<T>(
    kind: string,
    files: readonly string[],
    parse: (contents: string[]) => T | Promise<T>,
  ): Promise<T> {
    const document = await this.#load();
    const key = `${kind}\u0000${files.join('\u0000')}`;
    // Synchronous on purpose: a discovery reads hundreds of small files at once, and one
    // promise stat or read per file costs several thread-pool round trips (1,000 scripts:
    // ~75 ms with fs/promises, ~10 ms synchronous). Parsing them blocks the loop anyway.
    const stats = files.map((file) => statSync(file));
    const entry = document.entries[key];
    const now = Date.now();

    if (entry !== undefined && entry.files.length === files.length) {
      const unchanged = entry.files.every((stamp, i) => {
        const current = stats[i];
        return (
          current !== undefined &&
          stamp.size === current.size &&
          stamp.mtimeMs === current.mtimeMs &&
          current.mtimeMs < entry.storedAt - RACY_WINDOW_MS
        );
      });
      if (unchanged) {
        this.stats.hits++;
        if (now - entry.usedAt > USED_AT_RESOLUTION_MS) {
          entry.usedAt = now;
          this.#dirty = true;
        }
        return entry.value as T;
      }
    }

    // Hashed as bytes, not as decoded text: a key file may be binary (a module's .dll), and
    // every invalid UTF-8 sequence decodes to the same U+FFFD, so two builds could hash alike.
    const bytes = files.map((file) => readFileSync(file));
    const contents = bytes.map((content) => content.toString('utf8'));
    const stamps = files.map((file, i): FileStamp => ({
      path: file,
      size: stats[i]?.size ?? 0,
      mtimeMs: stats[i]?.mtimeMs ?? 0,
      hash: hashContent(bytes[i] ?? Buffer.alloc(0)),
    }));
    if (
      entry !== undefined &&
      entry.files.length === stamps.length &&
      entry.files.every((s, i) => s.hash === stamps[i]?.hash)
    ) {
      // Touched but not changed: keep the parse, refresh the stamps.
      this.stats.hits++;
      document.entries[key] = { files: stamps, value: entry.value, storedAt: now, usedAt: now };
      this.#dirty = true;
      return entry.value as T;
    }

    this.stats.misses++;
    const value = await parse(contents);
    document.entries[key] = {
      files: stamps,
      value: structuredClone(value),
      storedAt: now,
      usedAt: now,
    };
    this.#dirty = true;
    return value;
  }

  /** Writes the cache if anything changed. Failures are ignored: a cache is an optimisation. */
  async flush(): Promise<void> {
    if (!this.#dirty || this.#document === undefined) return;
    const cutoff = Date.now() - UNUSED_ENTRY_TTL_MS;
    for (const [key, entry] of Object.entries(this.#document.entries)) {
      if (entry.usedAt < cutoff) delete this.#document.entries[key];
    }
    const temporary = `${this.#file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await mkdir(path.dirname(this.#file), { recursive: true });
      await writeFile(temporary, JSON.stringify(this.#document));
      await rename(temporary, this.#file);
      this.#dirty = false;
    } catch {
      // A read-only project or a full disk must not break discovery.
    }
  }

  #load(): Promise<CacheDocument> {
    if (this.#document !== undefined) return Promise.resolve(this.#document);
    this.#loading ??= readFile(this.#file, 'utf8')
      .then((text) => {
        const parsed = JSON.parse(text) as CacheDocument;
        return parsed.format === FORMAT &&
          parsed.parser === this.#parser &&
          typeof parsed.entries === 'object'
          ? parsed
          : this.#emptyDocument();
      })
      .catch(() => this.#emptyDocument())
      .then((document) => {
        this.#document = document;
        return document;
      });
    return this.#loading;
  }

  #emptyDocument(): CacheDocument {
    return { format: FORMAT, parser: this.#parser, entries: {} };
  }
}

function hashContent(content: Buffer): string {
  return createHash('sha256').update(content).digest('base64url');
}
