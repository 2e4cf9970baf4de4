/** The exit codes every command uses (documented in `mcp --help`). */
export const EXIT_OK = 0;
/** The command ran and its result is a failure (a tool error, an error diagnostic). */
export const EXIT_FAILURE = 1;
/** Bad flags or input: unknown option, missing source, unreadable manifest. */
export const EXIT_USAGE = 2;
