import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from './index.ts';

describe.skipIf(!hasPostgres())(`a throw-away PostgreSQL cluster ${NEEDS_POSTGRES}`, () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(() => cluster?.stop(), 120_000);

  it('hands out separate databases on loopback, and survives a crash restart', async () => {
    expect(new URL(cluster.url).hostname).toBe('127.0.0.1');
    const [first, second] = [await cluster.createDatabase(), await cluster.createDatabase()];
    expect(first).not.toBe(second);
    const client = new pg.Client({ connectionString: first });
    await client.connect();
    await client.query('CREATE TABLE marks (n int)');
    await client.query('INSERT INTO marks VALUES (1)');
    await client.end();

    await cluster.restart();
    const again = new pg.Client({ connectionString: first });
    await again.connect();
    try {
      const { rows } = await again.query<{ n: number }>('SELECT n FROM marks');
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await again.end();
    }

    const other = new pg.Client({ connectionString: second });
    await other.connect();
    try {
      await expect(other.query('SELECT n FROM marks')).rejects.toThrow(/does not exist/);
    } finally {
      await other.end();
    }
  }, 120_000);
});
