import { readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic, ToolpackError } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';
import { describeBasicScript } from '../basic/index.ts';
import { describeHeaderScript } from '../header-script/index.ts';
import { describePowerShellScript } from '../../powershell-reader/index.ts';
import { createReadDiagnostic } from '../../read-error.ts';
import type { ParseCache, SourceResult } from '../../types.ts';

/**
 * Bumped whenever a script's description changes for the same text (2: HINTS lines; 3:
 * credential parameters are recorded for discovery to bind, not refused by the reader; 4: any
 * JSON value for untyped parameters, ValidateSet ignoring case, undescribed parameters marked
 * for lenient help, no repeated synopsis; 5: bare named attribute arguments, hash literal
 * keys, scripts with `.EXTERNALHELP` kept out of the cache).
 */
const SCRIPT_PARSER_VERSION = 7;

/** The extensions a script root serves; anything else in the folder is left alone. */
const SCRIPT_EXTENSIONS = ['.ps1', '.sh', '.py', '.js', '.mjs', '.ts', '.bas'] as const;

// Test and spec files sit beside tools in many repositories (Pester's `*.Tests.ps1`);
// they are never tools themselves. Dot-files are configuration (`.eslintrc.js`).
const TEST_FILE = /\.(?:tests?|spec)\.[^.]+$/i;
const DOT_FILE = /^\./;

/**
 * An info naming the rule that keeps a file with a served extension out: pwsh or node would run
 * it, so a user who looks for its tool must find out why there is none.
 */
function describeSkippedFile(file: string, name: string): Diagnostic | undefined {
  if (TEST_FILE.test(name))
    return createDiagnostic(
      'info',
      'I_SKIPPED_FILE',
      `${name} is not served: a script root skips test and spec files (*.Tests.*, *.Test.*, *.Spec.*, any case).`,
      { path: file },
      'If it is a tool, rename it so that its name does not end in .Tests, .Test or .Spec before the extension.',
    );
  if (DOT_FILE.test(name))
    return createDiagnostic(
      'info',
      'I_SKIPPED_FILE',
      `${name} is not served: a script root skips files whose name starts with a dot.`,
      { path: file },
      'If it is a tool, rename it without the leading dot.',
    );
  return undefined;
}

/**
 * A script whose help may come from the MAML file its `.EXTERNALHELP` names: that file (looked up
 * in the UI culture's folders) is no key of the cache, so the cache keeps only this marker and
 * the script is described on every listing.
 */
const EXTERNAL_HELP = /^[ \t#]*\.EXTERNALHELP\b/im;
const READS_HELP_FILE = 'reads-help-file';

export interface DiscoverScriptRootOptions {
  /** The folder, absolute or relative to `cwd`. */
  root: string;
  cwd: string;
  cache?: ParseCache;
  /** Extra extensions served by configured interpreters (`.rb`), described by PARAM headers. */
  extraExtensions?: readonly string[];
}

/**
 * A script root: every `*.ps1` (comment-based help + param block), `*.bas` (BASIC
 * PARAM lines) and `*.{sh,py,js,mjs,ts}` with PARAM header comments directly in `root`.
 */
export async function discoverScriptRoot(
  options: DiscoverScriptRootOptions,
): Promise<SourceResult> {
  const root = path.resolve(options.cwd, options.root);
  const entries = await readdir(root, { withFileTypes: true }).catch(
    (cause: NodeJS.ErrnoException) => {
      throw new ToolpackError(
        'E_SOURCE_MISSING',
        cause.code === 'ENOTDIR'
          ? `Script root ${options.root} is not a folder.`
          : `Script root ${options.root} does not exist.`,
        {
          cause,
          hint: 'Point --script-root (or `scripts:` in toolpack.yaml) at a folder of scripts.',
        },
      );
    },
  );
  const extensions = new Set<string>([...SCRIPT_EXTENSIONS, ...(options.extraExtensions ?? [])]);
  const skipped: Diagnostic[] = [];
  const files = entries
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .filter((entry) => extensions.has(path.extname(entry.name).toLowerCase()))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .filter((entry) => {
      const skip = describeSkippedFile(path.join(root, entry.name), entry.name);
      if (skip !== undefined) skipped.push(skip);
      return skip === undefined;
    });

  const results = await Promise.all(
    files.map(async (entry): Promise<SourceResult> => {
      const { name } = entry;
      const file = path.join(root, name);
      try {
        // The listing already says what a plain file is: only a link needs a stat. Reads are
        // synchronous, as in the cache (file-parse-cache.ts says why).
        if (entry.isSymbolicLink() && !statSync(file).isFile())
          return { tools: [], diagnostics: [] };
        const extension = path.extname(name).toLowerCase();
        const describe = (contents: string[]) => describeScript(file, extension, contents[0] ?? '');
        if (options.cache === undefined) return await describe([readFileSync(file, 'utf8')]);
        const cached = await options.cache.read(
          `script${extension}@${SCRIPT_PARSER_VERSION}`,
          [file],
          (contents): SourceResult | typeof READS_HELP_FILE | Promise<SourceResult> =>
            extension === '.ps1' && EXTERNAL_HELP.test(contents[0] ?? '')
              ? READS_HELP_FILE
              : describe(contents),
        );
        return cached === READS_HELP_FILE ? await describe([readFileSync(file, 'utf8')]) : cached;
      } catch (error) {
        return {
          tools: [],
          diagnostics: [createReadDiagnostic(file, error)],
        };
      }
    }),
  );
  return {
    tools: results.flatMap((r) => r.tools),
    diagnostics: [...skipped, ...results.flatMap((r) => r.diagnostics)],
  };
}

function describeScript(
  file: string,
  extension: string,
  content: string,
): SourceResult | Promise<SourceResult> {
  if (extension === '.ps1') return describePowerShellScript({ path: file, content });
  if (extension === '.bas') return describeBasicScript({ path: file, content });
  return describeHeaderScript({ path: file, content });
}
