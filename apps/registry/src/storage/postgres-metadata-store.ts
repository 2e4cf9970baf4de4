import { ToolpackError } from '@toolpack/core';
import type pg from 'pg';
import type { PackSummary, VersionDoc } from '../documents.ts';
import type {
  AddVersionResult,
  BlobClaim,
  BlobClaimResult,
  MetadataStore,
  DownloadCounts,
  NewVersionRecord,
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
import { METADATA_MIGRATIONS } from './postgres-metadata-migrations.ts';
import { applyPostgresMigrations } from './postgres-database.ts';
import {
  SEARCH_RANK_NORMALIZATION,
  SEARCH_RANK_WEIGHTS,
  buildPrefixVector,
  buildSearchTsquery,
  buildSearchVector,
} from './postgres-text-search.ts';
import { compareVersions, findListedVersion } from './pack-versions.ts';

// Advisory locks with two int4 keys: (namespace, hashtext(name)). A hash collision only makes
// two unrelated holders wait for each other. The single-bigint locks of the migrations are a
// separate key space.
const NAMED_LOCK_SPACE = 0x746f6f6c; // 'tool'
const BLOB_LOCK_SPACE = 0x626c6f62; // 'blob'

// The database's clock, not the replica's: every replica stamps changes with the same clock,
// so `updated_since` polling does not miss a change stamped by a replica whose clock lags.
const NOW_ISO = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The ORDER BY of each non-relevance sort (of packs rows); ties go by name. */
const SORT_ORDER: Record<Exclude<SearchSort, 'relevance'>, string> = {
  downloads:
    '(SELECT coalesce(sum(d.count), 0) FROM version_downloads d WHERE d.pack_id = packs.id) DESC, name',
  updated: '(SELECT max(v.published_at) FROM versions v WHERE v.pack_id = packs.id) DESC, name',
  name: 'name',
};

const VERSION_COLUMNS =
  'v.version, v.doc, v.blob_key, v.deprecated, v.yanked, v.published_at, v.published_by, v.updated_at';

export interface PostgresMetadataStoreOptions {
  /** From `openPostgresPool`; a registry process opens one and shares it with its blob store. */
  pool: pg.Pool;
  /**
   * Whether `close()` ends the pool. Default false: the pool belongs to whoever opened it
   * (and is shared with the blob store), who ends it after closing both stores.
   */
  ownsPool?: boolean;
}

type Row = Record<string, unknown>;
type Client = pg.PoolClient;

/**
 * The MetadataStore for registry replicas sharing one PostgreSQL database: every decision that
 * must hold across replicas is made by the database (unique keys, row locks, advisory locks),
 * never by one process's memory. Applies its migrations (component `metadata`) before
 * returning. Search is PostgreSQL full text: packs match through `tsvector`s of their terms'
 * prefixes under GIN indexes (`tsquery`s of quoted terms, never user syntax), and rank by
 * the exact name, the scoped name, every word in the name, then `ts_rank_cd` on a weighted
 * `tsvector` (name, tags, tool names, description).
 *
 * `close()` stops the store; it ends the pool only with `ownsPool`.
 */
export async function createPostgresMetadataStore(
  options: PostgresMetadataStoreOptions,
): Promise<MetadataStore> {
  const { pool } = options;
  await applyPostgresMigrations(pool, 'metadata', METADATA_MIGRATIONS);
  let closed = false;

  const connect = async (): Promise<Client> => {
    if (closed)
      throw new ToolpackError('E_REGISTRY_DATABASE', 'The PostgreSQL metadata store is closed.', {
        hint: 'This is a bug in the registry: a request outlived close().',
      });
    return pool.connect();
  };

  const query = async (sql: string, params: unknown[] = []): Promise<pg.QueryResult<Row>> => {
    const client = await connect();
    let broken: Error | undefined;
    try {
      return await client.query<Row>(sql, params);
    } catch (error) {
      broken = connectionError(error);
      throw error;
    } finally {
      client.release(broken);
    }
  };

  const transact = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = await connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError as Error;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  };

  const readVersions = async (client: Client, packId: string): Promise<StoredVersion[]> =>
    (
      await client.query<Row>(`SELECT ${VERSION_COLUMNS} FROM versions v WHERE v.pack_id = $1`, [
        packId,
      ])
    ).rows
      .map(readVersion)
      .sort((a, b) => compareVersions(a.doc.version, b.doc.version));

  /** Lists and indexes the pack by its listed version, or unlists it when all are yanked. */
  const refreshSummary = async (client: Client, packId: string, name: string): Promise<void> => {
    const head = findListedVersion((await readVersions(client, packId)).map((v) => v.doc));
    await client.query('DELETE FROM pack_tags WHERE pack_id = $1', [packId]);
    if (head === undefined) {
      await client.query(
        `UPDATE packs SET listed = false, head_version = NULL, summary = $2, tag_keys = '{}', search = '', prefixes = '',
         name_prefixes = ''
         WHERE id = $1`,
        [packId, JSON.stringify({ description: '', tags: [], toolCount: 0 })],
      );
      return;
    }
    const keys = head.tags.map((tag) => tag.toLowerCase());
    const toolNames = head.tools.map((tool) => tool.name);
    await client.query(
      `UPDATE packs SET listed = true, head_version = $2, summary = $3, tag_keys = $4, search = $5::tsvector,
         prefixes = $6::tsvector, name_prefixes = $7::tsvector
       WHERE id = $1`,
      [
        packId,
        head.version,
        JSON.stringify({
          description: head.description,
          tags: head.tags,
          toolCount: head.tools.length,
        }),
        [...new Set(keys)],
        buildSearchVector({
          name,
          tags: head.tags,
          toolNames,
          description: head.description,
        }),
        buildPrefixVector([name, ...head.tags, ...toolNames, head.description]),
        buildPrefixVector([name]),
      ],
    );
    // Of tags that differ only in case, the first spelling is kept, as in the SQLite store.
    await client.query(
      `INSERT INTO pack_tags (tag, pack_id, label)
       SELECT t.tag, $1, t.label FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t (tag, label, n)
       ORDER BY t.n ON CONFLICT DO NOTHING`,
      [packId, keys, head.tags],
    );
  };

  const lockQueues = new Map<string, Promise<void>>();

  return {
    async addVersion(record: NewVersionRecord): Promise<AddVersionResult> {
      const { doc } = record;
      return transact(async (client): Promise<AddVersionResult> => {
        // Of two first publishes of a name, the second waits here for the first to commit,
        // then finds the name taken.
        await client.query(
          `INSERT INTO packs (name, short_name, owner, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (name) DO NOTHING`,
          [doc.name, doc.name.slice(doc.name.indexOf('/') + 1), record.owner, record.publishedAt],
        );
        // Every change to a pack holds its row, so its summary is computed from all its
        // committed versions.
        const pack = (
          await client.query<Row>('SELECT id, owner FROM packs WHERE name = $1 FOR UPDATE', [
            doc.name,
          ])
        ).rows[0] as Row;
        if (pack.owner !== record.owner)
          return { status: 'owned-by-other', owner: String(pack.owner) };
        const { deprecated, yanked, ...stored } = doc;
        const inserted = await client.query<Row>(
          `INSERT INTO versions AS v (pack_id, version, doc, blob_key, deprecated, yanked, published_at, published_by, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7)
           ON CONFLICT (pack_id, version) DO NOTHING
           RETURNING ${VERSION_COLUMNS}`,
          [
            pack.id,
            doc.version,
            JSON.stringify(stored),
            record.blobKey,
            deprecated === undefined ? null : JSON.stringify(deprecated),
            yanked === true,
            record.publishedAt,
            record.publishedBy,
          ],
        );
        const row = inserted.rows[0];
        if (row === undefined) return { status: 'exists' };
        await refreshSummary(client, String(pack.id), doc.name);
        return { status: 'created', version: readVersion(row) };
      });
    },

    async getPackOwner(name) {
      if (name.includes('\0')) return undefined;
      const row = (await query('SELECT owner FROM packs WHERE name = $1', [name])).rows[0];
      return row === undefined ? undefined : String(row.owner);
    },

    async getPack(name): Promise<StoredPack | undefined> {
      if (name.includes('\0')) return undefined;
      const client = await connect();
      try {
        // One snapshot for the pack and its versions.
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const row = (
          await client.query<Row>('SELECT id, name, owner, created_at FROM packs WHERE name = $1', [
            name,
          ])
        ).rows[0];
        const pack =
          row === undefined
            ? undefined
            : {
                name: String(row.name),
                owner: String(row.owner),
                createdAt: String(row.created_at),
                versions: await readVersions(client, String(row.id)),
              };
        await client.query('COMMIT');
        client.release();
        return pack;
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
    },

    async getVersion(name, version) {
      if (name.includes('\0') || version.includes('\0')) return undefined;
      const row = (
        await query(
          `SELECT ${VERSION_COLUMNS} FROM versions v JOIN packs p ON p.id = v.pack_id
           WHERE p.name = $1 AND v.version = $2`,
          [name, version],
        )
      ).rows[0];
      return row === undefined ? undefined : readVersion(row);
    },

    async updateVersion(name, version, change: VersionChange) {
      if (name.includes('\0') || version.includes('\0')) return undefined;
      return transact(async (client) => {
        const pack = (
          await client.query<Row>('SELECT id FROM packs WHERE name = $1 FOR UPDATE', [name])
        ).rows[0];
        if (pack === undefined) return undefined;
        const exists = await client.query(
          'SELECT 1 FROM versions WHERE pack_id = $1 AND version = $2',
          [pack.id, version],
        );
        if (exists.rowCount === 0) return undefined;
        if (change.deprecated !== undefined)
          await client.query(
            `UPDATE versions SET deprecated = $3, updated_at = ${NOW_ISO} WHERE pack_id = $1 AND version = $2`,
            [
              pack.id,
              version,
              change.deprecated === null ? null : JSON.stringify(change.deprecated),
            ],
          );
        if (change.yanked !== undefined)
          await client.query(
            `UPDATE versions SET yanked = $3, updated_at = ${NOW_ISO} WHERE pack_id = $1 AND version = $2`,
            [pack.id, version, change.yanked],
          );
        await refreshSummary(client, String(pack.id), name);
        const row = (
          await client.query<Row>(
            `SELECT ${VERSION_COLUMNS} FROM versions v WHERE v.pack_id = $1 AND v.version = $2`,
            [pack.id, version],
          )
        ).rows[0] as Row;
        return readVersion(row);
      });
    },

    async search(query_: StoreSearchQuery): Promise<StoreSearchPage> {
      const tsquery = buildSearchTsquery(query_.words);
      const hasWords = query_.words.some((word) => word.trim() !== '');
      const tags = [...new Set(query_.tags.map((tag) => tag.toLowerCase()))];
      // Words with nothing searchable in them (`"*()`) match nothing rather than everything,
      // and no pack carries a tag PostgreSQL cannot even hold.
      if ((hasWords && tsquery === undefined) || tags.some((tag) => tag.includes('\0')))
        return {
          packs: [],
          hasMore: false,
          ...(query_.countUpTo === undefined ? {} : { total: 0 }),
        };
      const { limit, offset } = query_;
      // Each statement numbers its own parameters; `where` adds the filters every one has.
      const statement = () => {
        const params: unknown[] = [];
        const param = (value: unknown): string => {
          params.push(value);
          return `$${params.length}`;
        };
        const where = ['listed'];
        if (tags.length > 0) where.push(`tag_keys @> ${param(tags)}::text[]`);
        return { params, param, where };
      };
      const columns = 'name, head_version, summary';
      const sort = query_.sort ?? 'relevance';
      // A pack matches when a word is in its name or anywhere else (the two phases below).
      const matching = (of: ReturnType<typeof statement>): string[] => {
        if (tsquery === undefined) return of.where;
        const match = `${of.param(tsquery.exact)}::tsquery`;
        return [...of.where, `(prefixes @@ ${match} OR name_prefixes @@ ${match})`];
      };
      let total: number | undefined;
      if (query_.countUpTo !== undefined) {
        const counted = statement();
        const where = matching(counted);
        total = Number(
          (
            await query(
              `SELECT count(*) AS n FROM (SELECT 1 FROM packs WHERE ${where.join(' AND ')}
               LIMIT ${counted.param(query_.countUpTo)}) AS matched`,
              counted.params,
            )
          ).rows[0]?.n,
        );
      }
      let rows: Row[];
      if (tsquery === undefined || sort !== 'relevance') {
        const sorted = statement();
        const where = matching(sorted);
        ({ rows } = await query(
          `SELECT ${columns} FROM packs WHERE ${where.join(' AND ')}
           ORDER BY ${sort === 'relevance' ? 'name' : SORT_ORDER[sort]}
           LIMIT ${sorted.param(limit + 1)} OFFSET ${sorted.param(offset)}`,
          sorted.params,
        ));
      } else {
        // Packs with every word in their name come first: the pack of exactly that name, then
        // packs of that name under an owner (`acme/jira` for `jira`), then the others by rank.
        // They are found through the name's own index, so a page they fill (the usual case)
        // never ranks the many packs that only mention a word elsewhere.
        const named = statement();
        const match = `${named.param(tsquery.exact)}::tsquery`;
        const ranked = `${named.param(tsquery.prefix)}::tsquery`;
        const exactName = query_.exactName ?? '';
        const exact = named.param(exactName.includes('\0') ? '' : exactName);
        ({ rows } = await query(
          `SELECT ${columns}, count(*) OVER () AS named FROM packs
           WHERE ${named.where.join(' AND ')} AND name_prefixes @@ ${match}
           ORDER BY name = ${exact} DESC, short_name = ${exact} DESC, ${rankBy(ranked)}, name
           LIMIT ${named.param(limit + 1)} OFFSET ${named.param(offset)}`,
          named.params,
        ));
        if (rows.length < limit + 1) {
          // The page goes on into the packs that have the words elsewhere; `offset` counted
          // the named ones too.
          let namedCount = Number(rows[0]?.named ?? 0);
          if (rows.length === 0 && offset > 0) {
            const counting = statement();
            namedCount = Number(
              (
                await query(
                  `SELECT count(*) AS n FROM packs WHERE ${counting.where.join(' AND ')}
                   AND name_prefixes @@ ${counting.param(tsquery.exact)}::tsquery`,
                  counting.params,
                )
              ).rows[0]?.n,
            );
          }
          const rest = statement();
          const restMatch = `${rest.param(tsquery.exact)}::tsquery`;
          const restRanked = `${rest.param(tsquery.prefix)}::tsquery`;
          const more = await query(
            `SELECT ${columns} FROM packs
             WHERE ${rest.where.join(' AND ')} AND prefixes @@ ${restMatch} AND NOT name_prefixes @@ ${restMatch}
             ORDER BY ${rankBy(restRanked)}, name
             LIMIT ${rest.param(limit + 1 - rows.length)} OFFSET ${rest.param(Math.max(0, offset - namedCount))}`,
            rest.params,
          );
          rows = [...rows, ...more.rows];
        }
      }
      const packs = rows.slice(0, limit).map((row): PackSummary => {
        const summary = JSON.parse(String(row.summary)) as Omit<PackSummary, 'name' | 'version'>;
        return {
          name: String(row.name),
          version: String(row.head_version),
          description: summary.description,
          tags: summary.tags,
          toolCount: summary.toolCount,
        };
      });
      return { packs, hasMore: rows.length > limit, ...(total === undefined ? {} : { total }) };
    },

    async recordDownload(blobKey) {
      await query(
        `INSERT INTO version_downloads (pack_id, version, count)
         SELECT pack_id, version, 1 FROM versions WHERE blob_key = $1
         ON CONFLICT (pack_id, version) DO UPDATE SET count = version_downloads.count + 1`,
        [blobKey],
      );
    },

    async countDownloads(names) {
      const counts = new Map<string, DownloadCounts>();
      const unique = [...new Set(names)].filter((name) => !name.includes('\0'));
      if (unique.length === 0) return counts;
      const { rows } = await query(
        `SELECT p.name, d.version, d.count FROM version_downloads d JOIN packs p ON p.id = d.pack_id
         WHERE p.name = ANY($1::text[])`,
        [unique],
      );
      for (const row of rows) {
        const name = String(row.name);
        const entry = counts.get(name) ?? { total: 0, versions: {} };
        entry.versions[String(row.version)] = Number(row.count);
        entry.total += Number(row.count);
        counts.set(name, entry);
      }
      return counts;
    },

    async listVersions(list: VersionListQuery): Promise<VersionListPage> {
      const params: unknown[] = [];
      const param = (value: unknown): string => {
        params.push(value);
        return `$${params.length}`;
      };
      const where: string[] = [];
      if (list.after !== undefined) {
        // PostgreSQL text cannot hold U+0000, the least character: a bound with one compares
        // with every stored name as the bound cut before it would, except that the cut
        // bound itself is below it (so no version of that name follows it).
        const name = cutAtNul(list.after.name);
        const version = name.cut ? '\u{10FFFF}' : cutAtNul(list.after.version).text;
        // The row comparison alone cannot use the name index (its columns come from two
        // tables), so every page would scan from the first pack; the redundant bound on the
        // name lets the index start at the cursor (over 20 000 packs: 23 ms -> under 1 ms).
        const nameBound = param(name.text);
        where.push(
          `p.name >= ${nameBound}`,
          `(p.name, v.version) > (${nameBound}, ${param(version)})`,
        );
      }
      if (list.updatedSince !== undefined) {
        const since = cutAtNul(list.updatedSince);
        where.push(`v.updated_at ${since.cut ? '>' : '>='} ${param(since.text)}`);
      }
      if (list.latestOnly === true) where.push('v.version = p.head_version');
      if (list.nameContains !== undefined && list.nameContains !== '') {
        if (list.nameContains.includes('\0')) return { versions: [], hasMore: false };
        where.push(`strpos(lower(p.name), ${param(list.nameContains.toLowerCase())}) > 0`);
      }
      const { rows } = await query(
        `SELECT p.head_version, ${VERSION_COLUMNS}
         FROM versions v JOIN packs p ON p.id = v.pack_id
         ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
         ORDER BY p.name, v.version LIMIT ${param(list.limit + 1)}`,
        params,
      );
      return {
        versions: rows.slice(0, list.limit).map((row) => ({
          ...readVersion(row),
          isLatest: row.version === row.head_version,
        })),
        hasMore: rows.length > list.limit,
      };
    },

    async withLock(name, work) {
      // Callers in this process queue here first, so that waiting for the lock never takes
      // more than one pooled connection per name (the holder's work needs connections too).
      const previous = lockQueues.get(name) ?? Promise.resolve();
      const run = previous.then(
        () => holdAdvisoryLock(name, work),
        () => holdAdvisoryLock(name, work),
      );
      const settled = run.then(
        () => {},
        () => {},
      );
      lockQueues.set(name, settled);
      try {
        return await run;
      } finally {
        if (lockQueues.get(name) === settled) lockQueues.delete(name);
      }
    },

    async listTags(limit): Promise<TagCount[]> {
      const { rows } = await query(
        `SELECT tag, count(*) AS count, min(label) AS label FROM pack_tags
         GROUP BY tag ORDER BY count DESC, tag LIMIT $1`,
        [limit],
      );
      return rows.map((row) => ({ tag: String(row.label), count: Number(row.count) }));
    },

    async countPacks() {
      const row = (
        await query(
          'SELECT (SELECT count(*) FROM packs) AS packs, (SELECT count(*) FROM versions) AS versions',
        )
      ).rows[0] as Row;
      return { packs: Number(row.packs), versions: Number(row.versions) };
    },

    async claimBlob(claim: BlobClaim): Promise<BlobClaimResult> {
      const at = claim.at.getTime();
      return transact(async (client): Promise<BlobClaimResult> => {
        // Claims of one key queue on this lock until the claim before commits, so each
        // decision reads every claim and version committed before it.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
          BLOB_LOCK_SPACE,
          claim.key,
        ]);
        if (claim.purpose === 'delete') {
          const referenced = await client.query(
            'SELECT 1 FROM versions WHERE blob_key = $1 LIMIT 1',
            [claim.key],
          );
          if (referenced.rowCount !== 0) return 'referenced';
          const other = await client.query(
            'SELECT 1 FROM blob_claims WHERE key = $1 AND id <> $2 AND expires_at > $3 LIMIT 1',
            [claim.key, claim.id, at],
          );
          if (other.rowCount !== 0) return 'held';
        } else {
          const deleting = await client.query(
            `SELECT 1 FROM blob_claims WHERE key = $1 AND id <> $2 AND purpose = 'delete' AND expires_at > $3 LIMIT 1`,
            [claim.key, claim.id, at],
          );
          if (deleting.rowCount !== 0) return 'held';
        }
        await client.query(
          `INSERT INTO blob_claims (key, id, purpose, expires_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (key, id) DO UPDATE SET purpose = EXCLUDED.purpose, expires_at = EXCLUDED.expires_at`,
          [claim.key, claim.id, claim.purpose, claim.expiresAt.getTime()],
        );
        return 'granted';
      });
    },

    async releaseBlobClaim(key, id) {
      await query('DELETE FROM blob_claims WHERE key = $1 AND id = $2', [key, id]);
    },

    async isBlobReferenced(key) {
      return (
        (await query('SELECT 1 FROM versions WHERE blob_key = $1 LIMIT 1', [key])).rowCount !== 0
      );
    },

    async pruneBlobClaims(at) {
      return (
        (await query('DELETE FROM blob_claims WHERE expires_at <= $1', [at.getTime()])).rowCount ??
        0
      );
    },

    async addToken(record) {
      await query(
        `INSERT INTO tokens (id, owner, salt, hash, label, created_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          record.id,
          record.owner,
          record.salt,
          record.hash,
          record.label ?? null,
          record.createdAt,
          record.revokedAt ?? null,
        ],
      );
    },

    async getToken(id) {
      if (id.includes('\0')) return undefined;
      const row = (await query('SELECT * FROM tokens WHERE id = $1', [id])).rows[0];
      return row === undefined ? undefined : readToken(row);
    },

    async listTokens(owner) {
      const { rows } =
        owner === undefined
          ? await query('SELECT * FROM tokens ORDER BY created_at, id')
          : await query('SELECT * FROM tokens WHERE owner = $1 ORDER BY created_at, id', [owner]);
      return rows.map(readToken);
    },

    async revokeToken(id, at) {
      const result = await query(
        'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
        [at, id],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async close() {
      if (closed) return;
      closed = true;
      if (options.ownsPool === true) await pool.end();
    },
  };

  /**
   * Runs `work` holding a session advisory lock on a connection of its own. If this process
   * dies, PostgreSQL ends the session and the lock with it.
   */
  async function holdAdvisoryLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const client = await connect();
    let broken: Error | undefined;
    try {
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [NAMED_LOCK_SPACE, name]);
      return await work();
    } finally {
      await client
        .query('SELECT pg_advisory_unlock($1, hashtext($2))', [NAMED_LOCK_SPACE, name])
        .catch((error: unknown) => {
          // A connection that cannot unlock is destroyed, which releases the lock.
          broken = error as Error;
        });
      client.release(broken);
    }
  }
}

/** The order of packs that match `match` (a parameter reference), best first. */
function rankBy(match: string): string {
  return `ts_rank_cd('${SEARCH_RANK_WEIGHTS}', search, ${match}, ${SEARCH_RANK_NORMALIZATION}) DESC`;
}

function readVersion(row: Row): StoredVersion {
  const doc = JSON.parse(String(row.doc)) as VersionDoc;
  if (typeof row.deprecated === 'string') doc.deprecated = JSON.parse(row.deprecated) as string;
  if (row.yanked === true) doc.yanked = true;
  return {
    doc,
    blobKey: String(row.blob_key),
    publishedAt: String(row.published_at),
    publishedBy: String(row.published_by),
    updatedAt: String(row.updated_at),
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

/** The text before its first U+0000, and whether there was one. */
function cutAtNul(text: string): { text: string; cut: boolean } {
  const at = text.indexOf('\0');
  return at === -1 ? { text, cut: false } : { text: text.slice(0, at), cut: true };
}

/**
 * The error as a reason to destroy the connection rather than return it to the pool, when
 * it was the connection that failed (not the statement).
 */
function connectionError(error: unknown): Error | undefined {
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08 is connection exceptions; 57P is an operator intervention (shutdown).
  if (typeof code === 'string' && /^(08|57P)/.test(code)) return error as Error;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return undefined;
  return error instanceof Error ? error : new Error(String(error));
}
