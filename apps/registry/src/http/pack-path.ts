import { isValidPackName } from '@toolpack/packs';

export type PackPath =
  | { kind: 'pack'; name: string }
  | { kind: 'version'; name: string; version: string }
  | { kind: 'action'; name: string; version: string; action: 'deprecate' | 'yank' };

/**
 * Reads what follows `/v0/packs/`. A name is one segment or `owner/name`, sent either as
 * two segments or with the slash encoded (`acme%2Fjira`, as the packs client sends it).
 * Undefined for anything else, including escapes that do not decode.
 */
export function parsePackPath(rest: string): PackPath | undefined {
  let segments: string[];
  try {
    segments = rest
      .split('/')
      .map((segment) => decodeURIComponent(segment))
      .join('/')
      .split('/');
  } catch {
    return undefined;
  }
  if (segments.at(-1) === '') segments.pop();
  if (segments.length <= 2) {
    const name = segments.join('/');
    return isValidPackName(name) ? { kind: 'pack', name } : undefined;
  }
  for (const at of [1, 2]) {
    if (segments[at] !== 'versions') continue;
    const name = segments.slice(0, at).join('/');
    if (!isValidPackName(name)) continue;
    const [version, action, ...extra] = segments.slice(at + 1);
    if (version === undefined || version === '' || extra.length > 0) continue;
    if (action === undefined) return { kind: 'version', name, version };
    if (action === 'deprecate' || action === 'yank')
      return { kind: 'action', name, version, action };
  }
  return undefined;
}
