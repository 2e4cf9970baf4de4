import type { Diagnostic } from '@toolpack/core';
import { REFUSING_CODES } from '@toolpack/discovery';

/**
 * The composition error a server must neither start nor reload with (above `maxTools`, a
 * collision involving a pack, any collision under `strict`), found by its code.
 */
export function findRefusal(diagnostics: readonly Diagnostic[]): Diagnostic | undefined {
  return diagnostics.find((d) => REFUSING_CODES.has(d.code));
}
