const SAFE = Symbol('safe html');

/** Markup that is already escaped; only `markup` and `trustedHtml` make it. */
export interface SafeHtml {
  readonly [SAFE]: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/**
 * A template tag that escapes every interpolated value (pack names, descriptions and
 * schemas are user input) unless it is itself `SafeHtml`. Arrays are concatenated; null,
 * undefined and false render nothing. (Not named `html`: Prettier would reformat the
 * templates, and with them the whitespace of the pages.)
 */
export function markup(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return { [SAFE]: out };
}

/** For markup this code wrote itself (never user input). */
export function trustedHtml(markup: string): SafeHtml {
  return { [SAFE]: markup };
}

export function toHtmlString(value: SafeHtml): string {
  return value[SAFE];
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'object' && SAFE in value) return (value as SafeHtml)[SAFE];
  return escapeHtml(String(value));
}
