import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { ToolpackError } from '@toolpack/core';
import type { PackSummary, VersionDoc } from '../documents.ts';
import { buildFtsQuery } from './fts-query.ts';
import type {
  AddVersionResult,
  BlobClaim,
  BlobClaimResult,
  MetadataStore,
  NewVersionRecord,
  DownloadCounts,
  SearchSort,
  StoreSearchPage,
  StoreSearchQuery,
  StoredPack,
  StoredVersion,
  TagCount,
  TokenRecord,
  VersionChange,
  VersionListPage,
  VersionListQuery,
} from './metadata-store.ts';
import { compareVersions, findListedVersion } from './pack-versions.ts';

// 2 added blob_claims and versions_blob_key: a registry that knew only 1 would publish
// without claiming blobs, and a sweep could remove a blob it is about to commit.
// 3 added versions.updated_at (the official API's `updated_since`); older rows take their
// publish time.
// 4 added version_downloads (the gallery's download counts and its sort by downloads).
const SCHEMA_VERSION = 4;

// bm25 weights per FTS column: a word in the name counts most, then tags, tool names, description.
const RANK = 'bm25(packs_fts, 10.0, 1.0, 4.0, 3.0)';

/** The ORDER BY of each non-relevance sort (`p` is the packs row); ties go by name. */
const SORT_ORDER: Record<Exclude<SearchSort, 'relevance'>, string> = {
  downloads:
    '(SELECT coalesce(sum(d.count), 0) FROM version_downloads d WHERE d.pack_id = p.id) DESC, p.name',
  updated: '(SELECT max(v.published_at) FROM versions v WHERE v.pack_id = p.id) DESC, p.name',
  name: 'p.name',
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS packs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  short_name TEXT NOT NULL,
  owner TEXT NOT NULL,
  created_at TEXT NOT NULL,
  listed INTEGER NOT NULL DEFAULT 0,
  head_version TEXT,
  description TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '[]',
  tool_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS packs_listed_name ON packs (listed, name);
CREATE TABLE IF NOT EXISTS versions (
  pack_id INTEGER NOT NULL REFERENCES packs (id),
  version TEXT NOT NULL,
  doc TEXT NOT NULL,
  blob_key TEXT NOT NULL,
  deprecated TEXT,
  yanked INTEGER NOT NULL DEFAULT 0,
  published_at TEXT NOT NULL,
  published_by TEXT NOT NULL,
  updated_at TEXT,
  PRIMARY KEY (pack_id, version)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS versions_blob_key ON versions (blob_key);
CREATE TABLE IF NOT EXISTS blob_claims (
  key TEXT NOT NULL,
  id TEXT NOT NULL,
  purpose TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (key, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pack_tags (
  tag TEXT NOT NULL,
  pack_id INTEGER NOT NULL REFERENCES packs (id),
  label TEXT NOT NULL,
  PRIMARY KEY (tag, pack_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pack_tags_pack ON pack_tags (pack_id);
CREATE VIRTUAL TABLE IF NOT EXISTS packs_fts USING fts5 (
  name, description, tags, tools,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3'
);
CREATE TABLE IF NOT EXISTS version_downloads (
  pack_id INTEGER NOT NULL REFERENCES packs (id),
  version TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (pack_id, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  salt TEXT NOT NULL,
  hash TEXT NOT NULL,
  label TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
`;

export interface SqliteMetadataStoreOptions {
  /** The database file, or `:memory:`. Its folder is created when missing. */
  file: string;
}

type Row = Record<string, unknown>;

/** The default MetadataStore: one SQLite file through `node:sqlite` (no native build), FTS5 for search. */
export function createSqliteMetadataStore(options: SqliteMetadataStoreOptions): MetadataStore {
  if (options.file !== ':memory:')
    mkdirSync(path.dirname(path.resolve(options.file)), { recursive: true });
  const db = new DatabaseSync(options.file);
  db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;',
  );
  const current = Number((db.prepare('PRAGMA user_version').get() as Row).user_version);
  if (current > SCHEMA_VERSION) {
    db.close();
    throw new ToolpackError(
      'E_REGISTRY_SCHEMA',
      `${options.file} was written by a newer registry (schema ${current}; this one knows ${SCHEMA_VERSION}).`,
      { hint: 'Upgrade the registry, or point it at another data folder.' },
    );
  }
  db.exec(SCHEMA);
  const versionColumns = (db.prepare('PRAGMA table_info(versions)').all() as Row[]).map((row) =>
    String(row.name),
  );
  if (!versionColumns.includes('updated_at'))
    db.exec('ALTER TABLE versions ADD COLUMN updated_at TEXT');
  db.exec('UPDATE versions SET updated_at = published_at WHERE updated_at IS NULL');
  db.exec('CREATE INDEX IF NOT EXISTS versions_updated_at ON versions (updated_at)');
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);

  const statements = {
    packByName: db.prepare('SELECT id, name, owner, created_at FROM packs WHERE name = ?'),
    insertPack: db.prepare(
      'INSERT INTO packs (name, short_name, owner, created_at) VALUES (?, ?, ?, ?) RETURNING id',
    ),
    versionExists: db.prepare('SELECT 1 FROM versions WHERE pack_id = ? AND version = ?'),
    insertVersion: db.prepare(
      'INSERT INTO versions (pack_id, version, doc, blob_key, deprecated, yanked, published_at, published_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    versionsOf: db.prepare(
      'SELECT version, doc, blob_key, deprecated, yanked, published_at, published_by, updated_at FROM versions WHERE pack_id = ?',
    ),
    versionOf: db.prepare(
      'SELECT version, doc, blob_key, deprecated, yanked, published_at, published_by, updated_at FROM versions WHERE pack_id = ? AND version = ?',
    ),
    setDeprecated: db.prepare(
      'UPDATE versions SET deprecated = ?, updated_at = ? WHERE pack_id = ? AND version = ?',
    ),
    setYanked: db.prepare(
      'UPDATE versions SET yanked = ?, updated_at = ? WHERE pack_id = ? AND version = ?',
    ),
    updateSummary: db.prepare(
      'UPDATE packs SET listed = ?, head_version = ?, description = ?, tags = ?, tool_count = ? WHERE id = ?',
    ),
    deleteFts: db.prepare('DELETE FROM packs_fts WHERE rowid = ?'),
    insertFts: db.prepare(
      'INSERT INTO packs_fts (rowid, name, description, tags, tools) VALUES (?, ?, ?, ?, ?)',
    ),
    deleteTags: db.prepare('DELETE FROM pack_tags WHERE pack_id = ?'),
    insertTag: db.prepare('INSERT OR IGNORE INTO pack_tags (tag, pack_id, label) VALUES (?, ?, ?)'),
    listTags: db.prepare(
      'SELECT tag, count(*) AS count, min(label) AS label FROM pack_tags GROUP BY tag ORDER BY count DESC, tag LIMIT ?',
    ),
    countPacks: db.prepare('SELECT count(*) AS n FROM packs'),
    countVersions: db.prepare('SELECT count(*) AS n FROM versions'),
    insertToken: db.prepare(
      'INSERT INTO tokens (id, owner, salt, hash, label, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    tokenById: db.prepare('SELECT * FROM tokens WHERE id = ?'),
    allTokens: db.prepare('SELECT * FROM tokens ORDER BY created_at, id'),
    tokensOf: db.prepare('SELECT * FROM tokens WHERE owner = ? ORDER BY created_at, id'),
    revokeToken: db.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    blobReferenced: db.prepare('SELECT 1 FROM versions WHERE blob_key = ? LIMIT 1'),
    otherDeleteClaim: db.prepare(
      "SELECT 1 FROM blob_claims WHERE key = ? AND id <> ? AND purpose = 'delete' AND expires_at > ? LIMIT 1",
    ),
    otherClaim: db.prepare(
      'SELECT 1 FROM blob_claims WHERE key = ? AND id <> ? AND expires_at > ? LIMIT 1',
    ),
    upsertClaim: db.prepare(
      'INSERT OR REPLACE INTO blob_claims (key, id, purpose, expires_at) VALUES (?, ?, ?, ?)',
    ),
    deleteClaim: db.prepare('DELETE FROM blob_claims WHERE key = ? AND id = ?'),
    pruneClaims: db.prepare('DELETE FROM blob_claims WHERE expires_at <= ?'),
    recordDownload: db.prepare(
      `INSERT INTO version_downloads (pack_id, version, count)
       SELECT pack_id, version, 1 FROM versions WHERE blob_key = ?
       ON CONFLICT (pack_id, version) DO UPDATE SET count = count + 1`,
    ),
    downloadsOf: db.prepare(
      'SELECT d.version, d.count FROM version_downloads d JOIN packs p ON p.id = d.pack_id WHERE p.name = ?',
    ),
  };

  const inTransaction = <T>(work: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };

  const readVersion = (row: Row): StoredVersion => {
    const doc = JSON.parse(String(row.doc)) as VersionDoc;
    if (typeof row.deprecated === 'string') doc.deprecated = row.deprecated;
    if (Number(row.yanked) === 1) doc.yanked = true;
    return {
      doc,
      blobKey: String(row.blob_key),
      publishedAt: String(row.published_at),
      publishedBy: String(row.published_by),
      updatedAt: String(row.updated_at),
    };
  };

  const readVersions = (packId: number): StoredVersion[] =>
    (statements.versionsOf.all(packId) as Row[])
      .map(readVersion)
      .sort((a, b) => compareVersions(a.doc.version, b.doc.version));

  /** Lists and indexes the pack by its listed version, or unlists it when all are yanked. */
  const refreshSummary = (packId: number, name: string): void => {
    const head = findListedVersion(readVersions(packId).map((v) => v.doc));
    statements.deleteFts.run(packId);
    statements.deleteTags.run(packId);
    if (head === undefined) {
      statements.updateSummary.run(0, null, '', '[]', 0, packId);
      return;
    }
    statements.updateSummary.run(
      1,
      head.version,
      head.description,
      JSON.stringify(head.tags),
      head.tools.length,
      packId,
    );
    statements.insertFts.run(
      packId,
      name,
      head.description,
      head.tags.join(' '),
      head.tools.map((tool) => tool.name).join(' '),
    );
    for (const tag of head.tags) statements.insertTag.run(tag.toLowerCase(), packId, tag);
  };

  const locks = new Map<string, Promise<void>>();

  const packId = (name: string): number | undefined => {
    const row = statements.packByName.get(name) as Row | undefined;
    return row === undefined ? undefined : Number(row.id);
  };

  return {
    async addVersion(record: NewVersionRecord): Promise<AddVersionResult> {
      const { doc } = record;
      return inTransaction((): AddVersionResult => {
        const existing = statements.packByName.get(doc.name) as Row | undefined;
        if (existing !== undefined && existing.owner !== record.owner)
          return { status: 'owned-by-other', owner: String(existing.owner) };
        const id =
          existing === undefined
            ? Number(
                (
                  statements.insertPack.get(
                    doc.name,
                    doc.name.slice(doc.name.indexOf('/') + 1),
                    record.owner,
                    record.publishedAt,
                  ) as Row
                ).id,
              )
            : Number(existing.id);
        if (statements.versionExists.get(id, doc.version) !== undefined)
          return { status: 'exists' };
        const { deprecated, yanked, ...stored } = doc;
        statements.insertVersion.run(
          id,
          doc.version,
          JSON.stringify(stored),
          record.blobKey,
          deprecated ?? null,
          yanked === true ? 1 : 0,
          record.publishedAt,
          record.publishedBy,
          record.publishedAt,
        );
        refreshSummary(id, doc.name);
        return {
          status: 'created',
          version: readVersion(statements.versionOf.get(id, doc.version) as Row),
        };
      });
    },

    async getPackOwner(name) {
      const row = statements.packByName.get(name) as Row | undefined;
      return row === undefined ? undefined : String(row.owner);
    },

    async getPack(name): Promise<StoredPack | undefined> {
      const row = statements.packByName.get(name) as Row | undefined;
      if (row === undefined) return undefined;
      return {
        name: String(row.name),
        owner: String(row.owner),
        createdAt: String(row.created_at),
        versions: readVersions(Number(row.id)),
      };
    },

    async getVersion(name, version) {
      const id = packId(name);
      if (id === undefined) return undefined;
      const row = statements.versionOf.get(id, version) as Row | undefined;
      return row === undefined ? undefined : readVersion(row);
    },

    async updateVersion(name, version, change: VersionChange) {
      return inTransaction(() => {
        const id = packId(name);
        if (id === undefined) return undefined;
        if (statements.versionExists.get(id, version) === undefined) return undefined;
        const at = new Date().toISOString();
        if (change.deprecated !== undefined)
          statements.setDeprecated.run(change.deprecated, at, id, version);
        if (change.yanked !== undefined)
          statements.setYanked.run(change.yanked ? 1 : 0, at, id, version);
        refreshSummary(id, name);
        return readVersion(statements.versionOf.get(id, version) as Row);
      });
    },

    async search(query: StoreSearchQuery): Promise<StoreSearchPage> {
      const match = buildFtsQuery(query.words);
      const hasWords = query.words.some((word) => word.trim() !== '');
      // Words with nothing searchable in them (`"*()`) match nothing rather than everything.
      if (hasWords && match === undefined)
        return {
          packs: [],
          hasMore: false,
          ...(query.countUpTo === undefined ? {} : { total: 0 }),
        };
      const tags = [...new Set(query.tags.map((tag) => tag.toLowerCase()))];
      const params: SQLInputValue[] = [];
      const where = ['p.listed = 1'];
      if (tags.length > 0) {
        where.push(
          `p.id IN (SELECT pack_id FROM pack_tags WHERE tag IN (${tags.map(() => '?').join(', ')}) GROUP BY pack_id HAVING count(*) = ?)`,
        );
        params.push(...tags, tags.length);
      }
      const from =
        match === undefined ? 'packs p' : 'packs_fts JOIN packs p ON p.id = packs_fts.rowid';
      if (match !== undefined) {
        where.unshift('packs_fts MATCH ?');
        params.unshift(match);
      }
      const filter = `FROM ${from} WHERE ${where.join(' AND ')}`;
      const total =
        query.countUpTo === undefined
          ? undefined
          : Number(
              (
                db
                  .prepare(`SELECT count(*) AS n FROM (SELECT 1 ${filter} LIMIT ?)`)
                  .get(...params, query.countUpTo) as Row
              ).n,
            );
      const sort = query.sort ?? 'relevance';
      const columns = 'p.name, p.head_version, p.description, p.tags, p.tool_count';
      const pageParams = [...params];
      let order: string;
      if (sort !== 'relevance') {
        order = SORT_ORDER[sort];
      } else if (match === undefined) {
        order = 'p.name';
      } else {
        const exact = query.exactName ?? '';
        order = `p.name = ? DESC, p.short_name = ? DESC, ${RANK}, p.name`;
        pageParams.push(exact, exact);
      }
      pageParams.push(query.limit + 1, query.offset);
      const rows = db
        .prepare(`SELECT ${columns} ${filter} ORDER BY ${order} LIMIT ? OFFSET ?`)
        .all(...pageParams) as Row[];
      const packs = rows.slice(0, query.limit).map((row): PackSummary => ({
        name: String(row.name),
        version: String(row.head_version),
        description: String(row.description),
        tags: JSON.parse(String(row.tags)) as string[],
        toolCount: Number(row.tool_count),
      }));
      return {
        packs,
        hasMore: rows.length > query.limit,
        ...(total === undefined ? {} : { total }),
      };
    },

    async recordDownload(blobKey) {
      statements.recordDownload.run(blobKey);
    },

    async countDownloads(names) {
      const counts = new Map<string, DownloadCounts>();
      for (const name of new Set(names)) {
        const rows = statements.downloadsOf.all(name) as Row[];
        if (rows.length === 0) continue;
        const versions: Record<string, number> = {};
        for (const row of rows) versions[String(row.version)] = Number(row.count);
        const total = Object.values(versions).reduce((sum, n) => sum + n, 0);
        counts.set(name, { total, versions });
      }
      return counts;
    },

    async listVersions(query: VersionListQuery): Promise<VersionListPage> {
      const where: string[] = [];
      const params: SQLInputValue[] = [];
      if (query.after !== undefined) {
        // The bound on the name alone lets the name index start at the cursor; without it
        // every page scanned from the first pack (over 20 000 packs: 95 ms a page).
        where.push('p.name >= ?', '(p.name > ? OR (p.name = ? AND v.version > ?))');
        params.push(query.after.name, query.after.name, query.after.name, query.after.version);
      }
      if (query.updatedSince !== undefined) {
        where.push('v.updated_at >= ?');
        params.push(query.updatedSince);
      }
      if (query.latestOnly === true) where.push('v.version = p.head_version');
      if (query.nameContains !== undefined && query.nameContains !== '') {
        where.push('instr(lower(p.name), ?) > 0');
        params.push(query.nameContains.toLowerCase());
      }
      const rows = db
        .prepare(
          `SELECT p.name, p.head_version, v.version, v.doc, v.blob_key, v.deprecated, v.yanked, v.published_at, v.published_by, v.updated_at
           FROM versions v JOIN packs p ON p.id = v.pack_id
           ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
           ORDER BY p.name, v.version LIMIT ?`,
        )
        .all(...params, query.limit + 1) as Row[];
      return {
        versions: rows.slice(0, query.limit).map((row) => ({
          ...readVersion(row),
          isLatest: row.version === row.head_version,
        })),
        hasMore: rows.length > query.limit,
      };
    },

    async withLock(name, work) {
      // One process owns a SQLite file, so a lock within the process is a lock for all.
      const previous = locks.get(name) ?? Promise.resolve();
      const run = previous.then(work, work);
      const settled = run.then(
        () => {},
        () => {},
      );
      locks.set(name, settled);
      try {
        return await run;
      } finally {
        if (locks.get(name) === settled) locks.delete(name);
      }
    },

    async listTags(limit): Promise<TagCount[]> {
      return (statements.listTags.all(limit) as Row[]).map((row) => ({
        tag: String(row.label),
        count: Number(row.count),
      }));
    },

    async countPacks() {
      return {
        packs: Number((statements.countPacks.get() as Row).n),
        versions: Number((statements.countVersions.get() as Row).n),
      };
    },

    async claimBlob(claim: BlobClaim): Promise<BlobClaimResult> {
      const at = claim.at.getTime();
      return inTransaction((): BlobClaimResult => {
        if (claim.purpose === 'delete') {
          if (statements.blobReferenced.get(claim.key) !== undefined) return 'referenced';
          if (statements.otherClaim.get(claim.key, claim.id, at) !== undefined) return 'held';
        } else if (statements.otherDeleteClaim.get(claim.key, claim.id, at) !== undefined) {
          return 'held';
        }
        statements.upsertClaim.run(claim.key, claim.id, claim.purpose, claim.expiresAt.getTime());
        return 'granted';
      });
    },

    async releaseBlobClaim(key, id) {
      statements.deleteClaim.run(key, id);
    },

    async isBlobReferenced(key) {
      return statements.blobReferenced.get(key) !== undefined;
    },

    async pruneBlobClaims(at) {
      return Number(statements.pruneClaims.run(at.getTime()).changes);
    },

    async addToken(record) {
      statements.insertToken.run(
        record.id,
        record.owner,
        record.salt,
        record.hash,
        record.label ?? null,
        record.createdAt,
        record.revokedAt ?? null,
      );
    },

    async getToken(id) {
      const row = statements.tokenById.get(id) as Row | undefined;
      return row === undefined ? undefined : readToken(row);
    },

    async listTokens(owner) {
      const rows = (
        owner === undefined ? statements.allTokens.all() : statements.tokensOf.all(owner)
      ) as Row[];
      return rows.map(readToken);
    },

    async revokeToken(id, at) {
      return Number(statements.revokeToken.run(at, id).changes) > 0;
    },

    async close() {
      if (db.isOpen) db.close();
    },
  };
}

function readToken(row: Row): TokenRecord {
  const record: TokenRecord = {
    id: String(row.id),
    owner: String(row.owner),
    salt: String(row.salt),
    hash: String(row.hash),
    createdAt: String(row.created_at),
  };
  if (typeof row.label === 'string') record.label = row.label;
  if (typeof row.revoked_at === 'string') record.revokedAt = row.revoked_at;
  return record;
}
