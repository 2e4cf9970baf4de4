import type { GitIgnoreChange } from './ignore-toolpack-folder.ts';
import type { SourceRegistration } from './register-source.ts';
import { showPath } from './show-path.ts';

/** What `mcp new` changed besides the files it created, and what it could not (with the fix). */
export interface ChangeReport {
  changes: string[];
  notes: string[];
}

/** How toolpack.yaml now serves the new tool, or the line to add by hand. */
export function describeRegistration(registration: SourceRegistration): ChangeReport {
  const manifest = showPath(registration.file);
  switch (registration.outcome) {
    case 'created':
      return {
        changes: [
          `Created ${manifest}, so mcp list serves it:`,
          '  sources:',
          `    - ${registration.entry}`,
        ],
        notes: [],
      };
    case 'added':
      return {
        changes: [
          `Added "- ${registration.entry}" to sources: in ${manifest}, so mcp list serves it.`,
        ],
        notes: [],
      };
    case 'covered':
      return {
        changes: [`${manifest} serves it already: sources: - ${registration.entry}.`],
        notes: [],
      };
    case 'not-written':
      return {
        changes: [],
        notes: [
          `${manifest} was not changed (${registration.reason ?? 'it could not be read'}); to serve the tool, add the line "- ${registration.entry}" under sources:.`,
        ],
      };
  }
}

/** How `.toolpack/` is now kept out of git, or what to add by hand. */
export function describeGitIgnore(change: GitIgnoreChange): ChangeReport {
  const file = showPath(change.file);
  const why = '(the cache and installed packs stay out of git)';
  switch (change.outcome) {
    case 'created':
      return { changes: [`Created ${file} with .toolpack/ ${why}.`], notes: [] };
    case 'added':
      return { changes: [`Added .toolpack/ to ${file} ${why}.`], notes: [] };
    case 'ignored':
      return { changes: [], notes: [] };
    case 'not-written':
      return {
        changes: [],
        notes: [
          `${file} was not changed (${change.reason ?? 'it could not be read'}); add the line .toolpack/ to it ${why}.`,
        ],
      };
  }
}
