/**
 * Which help Get-Help gives a module's function, when external (MAML) help may exist: the
 * order of PowerShell's `CommandHelpProvider.GetHelpInfo` and `HelpCommentsParser`, and the
 * culture folders of its `MUIFileSearcher`.
 *
 * 1. Comment-based help with `.EXTERNALHELP <file>`: the file (relative to the file that
 *    defines the function) is searched in the culture folders of its directory; its entry for
 *    the command replaces the comment help. When the file is missing and the help block is one
 *    comment token, PowerShell drops the comment help too and goes on to step 3.
 * 2. Any other comment-based help wins: the module's help file is never read for it.
 * 3. `<ModuleName>-help.xml` in the module's folder (its culture folders); the first such file
 *    found is the only one read, even when it lacks the command.
 * 4. For a function of a nested module, `<NestedModuleFile>-help.xml` (`Gadgets.psm1-help.xml`)
 *    in the module's folder, then in the nested module's folder.
 *
 * Culture folders: the UI culture (`de-DE`), its parents (`de`), the folder itself, then `en-US`
 * and `en`. Folder names are matched exactly (as on Linux), file names in any case. Help that
 * Update-Help saved in the user's home is not read: a tool's description must not depend on
 * who lists it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Diagnostic } from '@toolpack/core';
import { findFunctionHelp } from './comment-help.ts';
import type { CommentHelp, HelpSearch } from './comment-help.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';
import type { LoadedFunction } from './module-loader.ts';
import { readMamlHelp } from './read-maml-help.ts';

export interface ExternalHelpOptions {
  /**
   * The module's `.psd1` or `.psm1`: its base name is the module's name, its folder the module's
   * base. For `findScriptHelp`, the script itself.
   */
  modulePath: string;
  /** The UI culture (`de-DE`, `''` for the invariant culture); by default the one pwsh would have, from the environment. */
  uiCulture?: string;
}

/**
 * The UI culture .NET gives pwsh: on Linux and macOS ICU reads `LC_ALL`, else `LC_MESSAGES`,
 * else `LANG` (a variable set but empty counts as set), `de_DE.UTF-8` is `de-DE`, and `C`,
 * `POSIX` or nothing is the invariant culture; on Windows, the user's locale.
 */
export function readUiCulture(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const value =
    platform === 'win32'
      ? Intl.DateTimeFormat().resolvedOptions().locale
      : (env.LC_ALL ?? env.LC_MESSAGES ?? env.LANG ?? '');
  const locale = value.replace(/[.@].*$/, '');
  if (locale === '' || locale === 'C' || locale === 'POSIX') return '';
  const [language = '', ...rest] = locale.split(/[_-]/);
  const parts = [language.toLowerCase()];
  for (const part of rest) {
    if (/^[a-z]{4}$/i.test(part))
      parts.push(part.charAt(0).toUpperCase() + part.slice(1).toLowerCase());
    else parts.push(part.toUpperCase());
  }
  return parts.join('-');
}

/** The folders MUIFileSearcher tries, in order: the culture and its parents, the folder itself, en-US, en. */
export function listHelpCultures(uiCulture: string): string[] {
  const cultures: string[] = [];
  const parts = uiCulture === '' ? [] : uiCulture.split('-');
  for (let count = parts.length; count > 0; count--) cultures.push(parts.slice(0, count).join('-'));
  cultures.push('');
  for (const fallback of ['en-US', 'en']) if (!cultures.includes(fallback)) cultures.push(fallback);
  return cultures;
}

/** Finds and reads the external help of one module's functions; each file is read once. */
export class ExternalHelpFinder {
  /** Help files PowerShell would fail to load, each reported once. */
  readonly diagnostics: Diagnostic[] = [];
  private readonly moduleName: string;
  private readonly moduleDirectory: string;
  private readonly cultures: string[];
  private readonly readings = new Map<string, Promise<Map<string, CommentHelp>>>();
  private readonly located = new Map<string, Promise<string | undefined>>();

  constructor(options: ExternalHelpOptions) {
    this.moduleName = basename(options.modulePath).replace(/\.(psd1|psm1)$/i, '');
    this.moduleDirectory = dirname(resolve(options.modulePath));
    this.cultures = listHelpCultures(options.uiCulture ?? readUiCulture());
  }

  /**
   * The help Get-Help gives `loaded` (comment-based or external). `nestedModulePath` is the
   * nested module file that defines it, when it is not the root module's.
   */
  async findFunctionHelp(loaded: LoadedFunction, nestedModulePath?: string): Promise<HelpSearch> {
    const name = loaded.fn.name.toLowerCase();
    const search = findFunctionHelp(loaded.document, loaded.fn);
    const comment = search.help;
    if (comment?.externalHelp !== undefined) {
      const followed = await this.followHelpKeyword(loaded.path, name, search);
      if (followed !== undefined) return followed;
    } else if (comment !== undefined) {
      return search;
    }
    const searched: string[] = [];
    const moduleFile = await this.locate([this.moduleDirectory], `${this.moduleName}-help.xml`);
    if (moduleFile !== undefined) searched.push(moduleFile);
    const fromModule =
      moduleFile === undefined ? undefined : (await this.read(moduleFile)).get(name);
    if (fromModule !== undefined) return { help: fromModule, rejections: [] };
    if (nestedModulePath !== undefined) {
      const nestedFile = await this.locate(
        [this.moduleDirectory, dirname(resolve(nestedModulePath))],
        `${basename(nestedModulePath)}-help.xml`,
      );
      if (nestedFile !== undefined) searched.push(nestedFile);
      const fromNested =
        nestedFile === undefined ? undefined : (await this.read(nestedFile)).get(name);
      if (fromNested !== undefined) return { help: fromNested, rejections: [] };
    }
    // No help: none was there, or the one-token `.EXTERNALHELP` block is dropped.
    return {
      rejections: search.rejections,
      ...(searched.length === 0 ? {} : { externalHelpFiles: searched }),
    };
  }

  /**
   * The help Get-Help gives a standalone script: only `.EXTERNALHELP` applies (a script has no
   * module help file), and the file's entry for it is named as Get-Command names the script,
   * `Get-Gadget.ps1` (any case). Construct the finder with the script's path as `modulePath`.
   */
  async findScriptHelp(scriptPath: string, search: HelpSearch): Promise<HelpSearch> {
    if (search.help?.externalHelp === undefined) return search;
    const followed = await this.followHelpKeyword(
      scriptPath,
      basename(scriptPath).toLowerCase(),
      search,
    );
    return followed ?? { rejections: search.rejections };
  }

  /**
   * `.EXTERNALHELP <file>` of `search`'s help, relative to the file defining the command: the
   * file's entry for `name` (lower case) replaces the comment help; without one, the comment
   * help stays. When the file is missing, undefined if the block is only that keyword (one
   * comment token: PowerShell's CreateFromComments drops it), else the comment help.
   */
  private async followHelpKeyword(
    definingPath: string,
    name: string,
    search: HelpSearch,
  ): Promise<HelpSearch | undefined> {
    const comment = search.help as CommentHelp & { externalHelp: string };
    const target = resolve(dirname(definingPath), comment.externalHelp.replace(/\\/g, '/'));
    const file = await this.locate([dirname(target)], basename(target));
    if (file !== undefined) {
      const help = (await this.read(file)).get(name);
      return help === undefined ? search : { help, rejections: [] };
    }
    return comment.commentTokens === 1 ? undefined : search;
  }

  private locate(directories: readonly string[], fileName: string): Promise<string | undefined> {
    const key = `${directories.join('\0')}\0${fileName.toLowerCase()}`;
    let found = this.located.get(key);
    if (found === undefined) {
      found = this.search(directories, fileName);
      this.located.set(key, found);
    }
    return found;
  }

  private async search(
    directories: readonly string[],
    fileName: string,
  ): Promise<string | undefined> {
    const wanted = fileName.toLowerCase();
    for (const directory of [...new Set(directories)]) {
      for (const culture of this.cultures) {
        const folder = join(directory, culture);
        let entries;
        try {
          entries = await readdir(folder, { withFileTypes: true });
        } catch {
          continue;
        }
        const match = entries
          .filter((entry) => entry.isFile() && entry.name.toLowerCase() === wanted)
          .map((entry) => entry.name)
          .sort()[0];
        if (match !== undefined) return join(folder, match);
      }
    }
    return undefined;
  }

  private read(file: string): Promise<Map<string, CommentHelp>> {
    let reading = this.readings.get(file);
    if (reading === undefined) {
      reading = this.load(file);
      this.readings.set(file, reading);
    }
    return reading;
  }

  private async load(file: string): Promise<Map<string, CommentHelp>> {
    let text: string;
    try {
      text = decodeHelpFile(await readFile(file));
    } catch (error) {
      this.report(file, `it cannot be read: ${(error as Error).message}`);
      return new Map();
    }
    const reading = await readMamlHelp(text, file);
    if (reading.problem !== undefined)
      this.report(file, reading.problem.message, reading.problem.line);
    return reading.commands;
  }

  private report(file: string, reason: string, line?: number): void {
    this.diagnostics.push(
      createFileDiagnostic(
        'warning',
        'W_EXTERNAL_HELP',
        `The help file ${file} gives no help: ${reason}. Get-Help skips it as well.`,
        file,
        line,
        'Regenerate the file (platyPS New-ExternalHelp) or fix the XML; the functions it should describe fall back to their comment-based help.',
      ),
    );
  }
}

/** Text of a help file as XmlDocument decodes it: a UTF-16 byte order mark decides, else UTF-8. */
function decodeHelpFile(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}
