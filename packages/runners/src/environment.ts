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

export interface BuildToolEnvironmentOptions {
  /** The environment to pick from (the server's). */
  source: NodeJS.ProcessEnv;
  /** Names (or `PREFIX*` patterns) added to the default allow-list. */
  allowList?: readonly string[];
  /** Values set for every tool, after the allow-list (e.g. a pack's declared `env`). */
  values?: Readonly<Record<string, string>>;
  platform?: NodeJS.Platform;
}

export function buildToolEnvironment(options: BuildToolEnvironmentOptions): Record<string, string> {
  const platform = options.platform ?? process.platform;
  // Windows variable names are case-insensitive (`Path`, `SystemRoot`); POSIX names are not.
  const fold = platform === 'win32' ? (name: string) => name.toUpperCase() : (name: string) => name;
  const patterns = [...DEFAULT_ENV_ALLOW_LIST, ...(options.allowList ?? [])].map((pattern) => {
    const folded = platform === 'win32' ? pattern.toUpperCase() : pattern;
    return folded.endsWith('*')
      ? { prefix: folded.slice(0, -1), exact: undefined }
      : { prefix: undefined, exact: folded };
  });
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.source)) {
    if (value === undefined) continue;
    const key = fold(name);
    const allowed = patterns.some((p) =>
      p.exact !== undefined ? p.exact === key : key.startsWith(p.prefix ?? ''),
    );
    if (allowed) environment[name] = value;
  }
  return { ...environment, ...options.values };
}
