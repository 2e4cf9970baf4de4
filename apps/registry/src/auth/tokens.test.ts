import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import { createSqliteMetadataStore } from '../storage/sqlite-metadata-store.ts';
import { createToken, generateToken, readBearerToken, verifyToken } from './tokens.ts';

afterAll(removeTempDirs);

describe('tokens', () => {
  it('creates a token that verifies to its owner, and stores only a salted hash of it', async () => {
    const dir = await makeTempDir();
    const file = path.join(dir, 'registry.db');
    const store = createSqliteMetadataStore({ file });
    const created = await createToken(store, { owner: 'acme', label: 'ci' });
    expect(created.token).toMatch(/^tpk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(await verifyToken(store, created.token)).toEqual({ id: created.id, owner: 'acme' });

    const record = await store.getToken(created.id);
    const secret = created.token.split('_').slice(2).join('_');
    expect(record?.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(record?.hash).toMatch(/^[0-9a-f]{64}$/);
    await store.close();
    const bytes =
      readFileSync(file).toString('latin1') +
      readFileSync(`${file}-wal`, { flag: 'a+' }).toString('latin1');
    expect(bytes).not.toContain(secret);
  });

  it('gives two tokens of one owner different salts and hashes', async () => {
    const store = createSqliteMetadataStore({ file: ':memory:' });
    const a = await createToken(store, { owner: 'acme' });
    const b = await createToken(store, { owner: 'acme' });
    const [ra, rb] = [await store.getToken(a.id), await store.getToken(b.id)];
    expect(ra?.salt).not.toBe(rb?.salt);
    expect(ra?.hash).not.toBe(rb?.hash);
    await store.close();
  });

  it('refuses unknown, forged, malformed and revoked tokens', async () => {
    const store = createSqliteMetadataStore({ file: ':memory:' });
    const { token, id } = await createToken(store, { owner: 'acme' });
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [generateToken(), forged, '', 'tpk_', `${token}x`, token.toUpperCase()]) {
      expect(await verifyToken(store, bad)).toBeUndefined();
    }
    await store.revokeToken(id, new Date().toISOString());
    expect(await verifyToken(store, token)).toBeUndefined();
    await store.close();
  });

  it('registers a token generated elsewhere, idempotently, and refuses a bad owner or format', async () => {
    const store = createSqliteMetadataStore({ file: ':memory:' });
    const token = generateToken();
    const first = await createToken(store, { owner: 'toolpack', token });
    expect(await createToken(store, { owner: 'toolpack', token })).toEqual(first);
    await expect(createToken(store, { owner: 'other', token })).rejects.toMatchObject({
      code: 'E_TOKEN_EXISTS',
    });
    await expect(createToken(store, { owner: 'Not An Owner' })).rejects.toMatchObject({
      code: 'E_TOKEN_OWNER',
    });
    await expect(
      createToken(store, { owner: 'acme', token: 'plain-secret' }),
    ).rejects.toMatchObject({ code: 'E_TOKEN_FORMAT' });
    await store.close();
  });

  it('reads bearer tokens from Authorization headers', () => {
    expect(readBearerToken('Bearer abc')).toBe('abc');
    expect(readBearerToken('bearer   abc  ')).toBe('abc');
    expect(readBearerToken('Basic abc')).toBeUndefined();
    expect(readBearerToken('Bearer a b')).toBeUndefined();
    expect(readBearerToken(undefined)).toBeUndefined();
  });
});
