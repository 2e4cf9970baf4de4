import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { describeMetadataStoreContract } from './metadata-store-contract.ts';
import { createSqliteMetadataStore } from './sqlite-metadata-store.ts';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function makeDatabaseFile(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'toolpack-sqlite-store-'));
  folders.push(folder);
  return path.join(folder, 'registry.db');
}

describeMetadataStoreContract('SQLite', async () => {
  const file = await makeDatabaseFile();
  return {
    store: createSqliteMetadataStore({ file }),
    openAnother: async () => createSqliteMetadataStore({ file }),
  };
});

describe('the SQLite store on its own', () => {
  it('refuses a database file written by a newer registry', async () => {
    const file = await makeDatabaseFile();
    const db = new DatabaseSync(file);
    db.exec('PRAGMA user_version = 99');
    db.close();
    expect(() => createSqliteMetadataStore({ file })).toThrow(
      expect.objectContaining({ code: 'E_REGISTRY_SCHEMA' }),
    );
  });

  it('works in memory', async () => {
    const store = createSqliteMetadataStore({ file: ':memory:' });
    expect(await store.countPacks()).toEqual({ packs: 0, versions: 0 });
    await store.close();
  });
});
