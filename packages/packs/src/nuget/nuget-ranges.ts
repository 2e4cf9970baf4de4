import { toSemverFromNuGetVersion } from './nuget-names.ts';

/**
 * A NuGet version range as a semver range: `1.0` is a minimum (`>=1.0.0`), `[1.0]` exact,
 * `[1.0,2.0)` an interval with either end open or absent. Undefined for one semver cannot
 * spell; an absent range is any version (`*`).
 */
export function toSemverRange(range: string | undefined): string | undefined {
  const text = (range ?? '').trim();
  if (text === '') return '*';
  const interval = /^([[(])\s*([^,\])]*?)\s*(?:,\s*([^\])]*?)\s*)?([\])])$/.exec(text);
  if (interval === null) {
    const minimum = toSemverFromNuGetVersion(text);
    return minimum === undefined ? undefined : `>=${minimum}`;
  }
  const [, open, low = '', high, close] = interval;
  if (high === undefined) {
    // `[1.0]` is exactly 1.0; `(1.0)` means nothing.
    const exact = toSemverFromNuGetVersion(low);
    return open === '[' && close === ']' && exact !== undefined ? exact : undefined;
  }
  const parts: string[] = [];
  if (low !== '') {
    const version = toSemverFromNuGetVersion(low);
    if (version === undefined) return undefined;
    parts.push(`${open === '[' ? '>=' : '>'}${version}`);
  }
  if (high !== '') {
    const version = toSemverFromNuGetVersion(high);
    if (version === undefined) return undefined;
    parts.push(`${close === ']' ? '<=' : '<'}${version}`);
  }
  return parts.length === 0 ? '*' : parts.join(' ');
}
