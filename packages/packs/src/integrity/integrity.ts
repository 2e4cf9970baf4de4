import { createHash, timingSafeEqual } from 'node:crypto';
import { ToolpackError } from '@toolpack/core';

/** The SRI string (`sha512-<base64>`) of `bytes`, as npm and the Registry API record it. */
export function computeIntegrity(bytes: Uint8Array): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/** The sha512 digests an SRI string holds (it may list several, separated by spaces). */
function readSha512Digests(integrity: string): Buffer[] {
  return integrity
    .trim()
    .split(/\s+/)
    .flatMap((token) => {
      const match = /^sha512-([A-Za-z0-9+/]{86}==)(\?.*)?$/.exec(token);
      return match?.[1] === undefined ? [] : [Buffer.from(match[1], 'base64')];
    });
}

export function isValidIntegrity(integrity: string): boolean {
  return readSha512Digests(integrity).length > 0;
}

/** True when `bytes` hash to one of the sha512 digests of `integrity`. Weaker algorithms never count. */
export function checkIntegrity(bytes: Uint8Array, integrity: string): boolean {
  const actual = createHash('sha512').update(bytes).digest();
  return readSha512Digests(integrity).some((expected) => timingSafeEqual(expected, actual));
}

/** Throws `E_INTEGRITY` unless `bytes` match `integrity`; `what` names the download in the message. */
export function assertIntegrity(bytes: Uint8Array, integrity: string, what: string): void {
  if (!isValidIntegrity(integrity)) {
    throw new ToolpackError(
      'E_INTEGRITY',
      `${what} has no sha512 integrity (got ${JSON.stringify(integrity.slice(0, 40))}), so it cannot be checked and was not installed.`,
      { hint: 'The registry must give dist.integrity as "sha512-<base64>".' },
    );
  }
  if (!checkIntegrity(bytes, integrity)) {
    throw new ToolpackError(
      'E_INTEGRITY',
      `${what} does not match its integrity: expected ${integrity}, got ${computeIntegrity(bytes)}. Nothing was installed.`,
      {
        hint: 'The download was corrupted or the tarball was changed after it was published; try again, and tell the registry owner if it persists.',
      },
    );
  }
}

/** A file name for the content-addressed cache (`sha512-<hex>`: base64 has `/`). */
export function integrityToFileName(integrity: string): string | undefined {
  const digest = readSha512Digests(integrity)[0];
  return digest === undefined ? undefined : `sha512-${digest.toString('hex')}.tgz`;
}
