import type { ErrorExitClass } from '@toolpack/core';

/** The exit codes every command uses (documented in `mcp --help`). */
export const EXIT_OK = 0;
/** The command ran and its result is a failure (a tool error, an error diagnostic). */
export const EXIT_FAILURE = 1;
/** Bad flags or input: unknown option, missing source, unreadable manifest. */
export const EXIT_USAGE = 2;

/**
 * The exit of a command stopped by an error, from its code's class in core's catalogue
 * (undefined for a code this version does not know). Whatever the class, a thrown error ended
 * the command, so only `usage` maps to anything but a failure.
 */
export function exitCodeForError(exitClass: ErrorExitClass | undefined): number {
  return exitClass === 'usage' ? EXIT_USAGE : EXIT_FAILURE;
}
