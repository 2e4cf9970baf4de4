import type { PostgresMigration } from './postgres-database.ts';

/**
 * The `metadata` component's schema, applied in order by `applyPostgresMigrations`. A
 * migration, once released, never changes: a new one is appended.
 *
 * Names and versions are `COLLATE "C"` so that every comparison, order and cursor is by
 * bytes, as in the SQLite store (and whatever the database's own collation). Times are the
 * ISO 8601 text the registry wrote, compared as text, also as in SQLite. Free text a
 * publisher or owner chose (the listed version's summary, a deprecation message) is stored
 * as JSON text: PostgreSQL text cannot hold U+0000, and JSON escapes it.
 */
export const METADATA_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE packs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text COLLATE "C" NOT NULL UNIQUE,
  short_name text COLLATE "C" NOT NULL,
  owner text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  listed boolean NOT NULL DEFAULT false,
  head_version text COLLATE "C",
  -- {"description", "tags", "toolCount"} of the listed version.
  summary text NOT NULL DEFAULT '{"description":"","tags":[],"toolCount":0}',
  -- The listed version's tags, lowercased: what a tag filter matches.
  tag_keys text[] COLLATE "C" NOT NULL DEFAULT '{}',
  -- Weighted terms with positions: what matches are ranked by.
  search tsvector NOT NULL DEFAULT '',
  -- Every prefix of every term: what matches (exact lexemes, fast in GIN).
  prefixes tsvector NOT NULL DEFAULT '',
  -- The same of the name's terms alone: search ranks packs with every word in their name
  -- first, and this index finds those without visiting every pack that mentions the words.
  name_prefixes tsvector NOT NULL DEFAULT ''
);
CREATE INDEX packs_listed_name ON packs (name) WHERE listed;
CREATE INDEX packs_prefixes ON packs USING gin (prefixes) WHERE listed;
CREATE INDEX packs_name_prefixes ON packs USING gin (name_prefixes) WHERE listed;
CREATE INDEX packs_tag_keys ON packs USING gin (tag_keys) WHERE listed;

CREATE TABLE versions (
  pack_id bigint NOT NULL REFERENCES packs (id),
  version text COLLATE "C" NOT NULL,
  doc text NOT NULL,
  blob_key text COLLATE "C" NOT NULL,
  -- A JSON string, or NULL when not deprecated.
  deprecated text,
  yanked boolean NOT NULL DEFAULT false,
  published_at text COLLATE "C" NOT NULL,
  published_by text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (pack_id, version)
);
CREATE INDEX versions_blob_key ON versions (blob_key);
CREATE INDEX versions_updated_at ON versions (updated_at);

-- A published version is immutable: what was served under name@version (its document and
-- tarball) stays what is served, so lockfile integrities never break. Only deprecation and
-- yanking change, and nothing is deleted (yank instead).
CREATE FUNCTION toolpack_refuse_version_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'published versions are never deleted (% of pack %): yank it instead',
      OLD.version, OLD.pack_id USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.pack_id IS DISTINCT FROM OLD.pack_id OR NEW.version IS DISTINCT FROM OLD.version
     OR NEW.doc IS DISTINCT FROM OLD.doc OR NEW.blob_key IS DISTINCT FROM OLD.blob_key
     OR NEW.published_at IS DISTINCT FROM OLD.published_at
     OR NEW.published_by IS DISTINCT FROM OLD.published_by THEN
    RAISE EXCEPTION 'published versions are immutable (% of pack %): only deprecated, yanked and updated_at may change',
      OLD.version, OLD.pack_id USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER versions_immutable BEFORE UPDATE OR DELETE ON versions
  FOR EACH ROW EXECUTE FUNCTION toolpack_refuse_version_change();

CREATE TABLE pack_tags (
  tag text COLLATE "C" NOT NULL,
  pack_id bigint NOT NULL REFERENCES packs (id),
  label text COLLATE "C" NOT NULL,
  PRIMARY KEY (tag, pack_id)
);
CREATE INDEX pack_tags_pack ON pack_tags (pack_id);

CREATE TABLE blob_claims (
  key text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('publish', 'delete')),
  -- Milliseconds since the epoch.
  expires_at bigint NOT NULL,
  PRIMARY KEY (key, id)
);

CREATE TABLE tokens (
  id text COLLATE "C" PRIMARY KEY,
  owner text COLLATE "C" NOT NULL,
  salt text NOT NULL,
  hash text NOT NULL,
  label text,
  created_at text COLLATE "C" NOT NULL,
  revoked_at text
);
CREATE INDEX tokens_owner ON tokens (owner, created_at, id);
`,
  },
  {
    // The gallery's download counts (a .tgz or .nupkg served) and its sort by downloads. Kept
    // out of versions, whose rows are immutable once published.
    version: 2,
    sql: `
CREATE TABLE version_downloads (
  pack_id bigint NOT NULL REFERENCES packs (id),
  version text COLLATE "C" NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (pack_id, version)
);
`,
  },
];
