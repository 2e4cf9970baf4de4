/**
 * A PowerShell single-quoted string literal. PowerShell closes such a string on any of five
 * quote characters (the ASCII one and four typographic ones), so each is doubled: a pack
 * description can never end the string and become code in the module manifest.
 */
export function quotePowerShellString(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201A\u201B]/g, (quote) => quote + quote)}'`;
}

/** `@('a', 'b')`, each element quoted. */
export function formatPowerShellArray(items: readonly string[]): string {
  return `@(${items.map(quotePowerShellString).join(', ')})`;
}
