import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ToolpackError } from '@toolpack/core';
import type { MetadataStore, TokenRecord } from '../storage/metadata-store.ts';

/**
 * Publish tokens look like `tpk_<16 hex id>_<43 base64url secret>`. The id finds the stored
 * record; only an HMAC of the secret under a per-token random salt is stored, so a leaked
 * database gives no usable token.
 */
const TOKEN_PATTERN = /^tpk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const OWNER_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

export interface CreateTokenOptions {
  /** Names `owner/*` and the bare names this owner publishes first belong to it. */
  owner: string;
  label?: string;
  /** Registers a token generated elsewhere (`generateToken`) instead of making a new one. */
  token?: string;
}

export interface CreatedToken {
  /** Shown once; the registry cannot show it again. */
  token: string;
  id: string;
  owner: string;
}

export interface VerifiedToken {
  id: string;
  owner: string;
}

export function isValidOwner(owner: string): boolean {
  return OWNER_PATTERN.test(owner);
}

/** A new random token in the registry's format. */
export function generateToken(): string {
  return `tpk_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
}

/** Stores a token's hash for `owner` and returns the token (the only time it is seen). */
export async function createToken(
  store: MetadataStore,
  options: CreateTokenOptions,
): Promise<CreatedToken> {
  if (!isValidOwner(options.owner)) {
    throw new ToolpackError(
      'E_TOKEN_OWNER',
      `${JSON.stringify(options.owner)} is not a valid owner name.`,
      {
        hint: 'Owners are lowercase letters, digits and hyphens (at most 64), like pack names: acme, my-team.',
      },
    );
  }
  const token = options.token ?? generateToken();
  const parts = TOKEN_PATTERN.exec(token);
  if (parts?.[1] === undefined || parts[2] === undefined) {
    throw new ToolpackError(
      'E_TOKEN_FORMAT',
      'The token is not in the registry’s format (tpk_<id>_<secret>).',
      {
        hint: 'Make one with generateToken() or `toolpack-registry token create --owner NAME`.',
      },
    );
  }
  const existing = await store.getToken(parts[1]);
  if (existing !== undefined) {
    if (existing.owner === options.owner && matchesSecret(existing, parts[2]))
      return { token, id: existing.id, owner: existing.owner };
    throw new ToolpackError(
      'E_TOKEN_EXISTS',
      `A different token with id ${parts[1]} already exists.`,
      {
        hint: 'Generate a new token instead of reusing this one.',
      },
    );
  }
  const salt = randomBytes(16).toString('hex');
  const record: TokenRecord = {
    id: parts[1],
    owner: options.owner,
    salt,
    hash: hashSecret(salt, parts[2]),
    createdAt: new Date().toISOString(),
  };
  if (options.label !== undefined) record.label = options.label;
  await store.addToken(record);
  return { token, id: record.id, owner: record.owner };
}

/** The token's owner when `token` is a live token of this registry; undefined otherwise. */
export async function verifyToken(
  store: MetadataStore,
  token: string,
): Promise<VerifiedToken | undefined> {
  const parts = TOKEN_PATTERN.exec(token);
  if (parts?.[1] === undefined || parts[2] === undefined) return undefined;
  const record = await store.getToken(parts[1]);
  if (record === undefined || record.revokedAt !== undefined) return undefined;
  return matchesSecret(record, parts[2]) ? { id: record.id, owner: record.owner } : undefined;
}

/** The bearer token of an `Authorization` header, if it has one. */
export function readBearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}

function hashSecret(salt: string, secret: string): string {
  return createHmac('sha256', Buffer.from(salt, 'hex')).update(secret).digest('hex');
}

function matchesSecret(record: TokenRecord, secret: string): boolean {
  const expected = Buffer.from(record.hash, 'hex');
  const actual = Buffer.from(hashSecret(record.salt, secret), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
