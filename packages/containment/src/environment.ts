/**
 * What a tool inherits from the server's environment. Never the whole environment: the
 * server may hold tokens that a downloaded pack has no business reading. `*` at the end
 * of an entry matches any suffix.
 */
export const DEFAULT_ENV_ALLOW_LIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'USERNAME',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  // Windows: without these, many programs (and pwsh itself) fail to start.
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'PROGRAMW6432',
  'COMMONPROGRAMFILES',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  // Interpreters that locate their runtime through the environment.
  'PSMODULEPATH',
  'DOTNET_ROOT',
  'VIRTUAL_ENV',
  'PYENV_ROOT',
  'PYENV_VERSION',
];

/**
 * Names Toolpack itself reads from its own environment (the bearer and publish token, the
 * registry address, the PowerShell host's channel token, the containment and sandbox switches). A child
 * never inherits them from the server, even when an allow-list pattern matches: a tool that
 * needs a token gets its own variable, declared by its pack. The runner may still set one of
 * these names explicitly for a child (`values`), as the PowerShell host's token is.
 */
export const WITHHELD_ENV_NAMES: readonly string[] = [
  'TOOLPACK_TOKEN',
  'TOOLPACK_HOST_TOKEN',
  'TOOLPACK_TEST_TOKEN',
  'TOOLPACK_REGISTRY',
  'TOOLPACK_CACHE_DIR',
  'TOOLPACK_CONTAINMENT',
  'TOOLPACK_SANDBOX',
];

export interface BuildToolEnvironmentOptions {
  /** The environment to pick from (the server's). */
  source: NodeJS.ProcessEnv;
  /** Names (or `PREFIX*` patterns) added to the default allow-list. */
  allowList?: readonly string[];
  /** Values set for every tool, after the allow-list (e.g. a pack's declared `env`). */
  values?: Readonly<Record<string, string>>;
  platform?: NodeJS.Platform;
  /**
   * Told once per allow-list entry that names a withheld variable (`TOOLPACK_TOKEN`), which
   * is left out all the same. Libraries do not print: the caller decides where this goes.
   */
  onWarning?: (message: string) => void;
}

export function buildToolEnvironment(options: BuildToolEnvironmentOptions): Record<string, string> {
  const platform = options.platform ?? process.platform;
  // Windows variable names are case-insensitive (`Path`, `SystemRoot`); POSIX names are not.
  const fold = platform === 'win32' ? (name: string) => name.toUpperCase() : (name: string) => name;
  const toPattern = (pattern: string) => {
    const folded = fold(pattern);
    return folded.endsWith('*')
      ? { prefix: folded.slice(0, -1), exact: undefined }
      : { prefix: undefined, exact: folded };
  };
  const matches = (pattern: ReturnType<typeof toPattern>, key: string) =>
    pattern.exact !== undefined ? pattern.exact === key : key.startsWith(pattern.prefix ?? '');
  const patterns = [...DEFAULT_ENV_ALLOW_LIST, ...(options.allowList ?? [])].map(toPattern);
  // Withheld names are Toolpack's own, upper case on every platform.
  const withheld = new Set(WITHHELD_ENV_NAMES);
  if (options.onWarning !== undefined) {
    for (const entry of findWithheldAllowListEntries(options.allowList ?? [], platform)) {
      options.onWarning(
        `The environment allow-list entry "${entry.entry}" names ${entry.names.join(', ')}, which Toolpack reads for itself and never passes to a tool or pack; it is left out. ` +
          "Give the tool its own variable (declare it in the pack's env:) instead.",
      );
    }
  }
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.source)) {
    if (value === undefined) continue;
    const key = fold(name);
    if (withheld.has(key.toUpperCase())) continue;
    if (patterns.some((p) => matches(p, key))) environment[name] = value;
  }
  return { ...environment, ...options.values };
}

/** The allow-list entries that match a withheld name, with the names they match. */
export function findWithheldAllowListEntries(
  allowList: readonly string[],
  platform: NodeJS.Platform = process.platform,
): { entry: string; names: string[] }[] {
  const fold = platform === 'win32' ? (name: string) => name.toUpperCase() : (name: string) => name;
  const found: { entry: string; names: string[] }[] = [];
  for (const entry of allowList) {
    const folded = fold(entry);
    const names = WITHHELD_ENV_NAMES.filter((name) =>
      folded.endsWith('*') ? name.startsWith(folded.slice(0, -1)) : name === folded,
    );
    if (names.length > 0) found.push({ entry, names });
  }
  return found;
}
