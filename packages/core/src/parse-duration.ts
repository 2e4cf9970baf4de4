/**
 * Reads a duration: a number (of `defaultUnitMs`), or text such as `"500ms"`, `"30s"`, `"2m"`,
 * `"1h"` or `"90"` (in `defaultUnitMs`); units ignore case and may be spaced from the number.
 * Gives milliseconds as read, unrounded, so each caller applies its own floor and rounding;
 * undefined when the value is not a duration (negative, not finite, or not of that form).
 */
export function parseDuration(
  value: unknown,
  options: { defaultUnitMs: number },
): number | undefined {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value * options.defaultUnitMs;
  else if (typeof value === 'string') {
    // Trimmed first: spaces on both sides of an optional unit would backtrack quadratically.
    const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(value.trim());
    if (match !== null) {
      const unit = (match[2] ?? '').toLowerCase();
      const scale = UNIT_MS[unit] ?? options.defaultUnitMs;
      ms = Number(match[1]) * scale;
    }
  }
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return undefined;
  return ms;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
