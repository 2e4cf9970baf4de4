import { findCliPackage } from './find-cli-package.ts';
import type { CliIo, Style } from './io.ts';

/** Set to 1 to have an internal error print its stack. */
const DEBUG_ENV_VARIABLE = 'TOOLPACK_DEBUG';

/**
 * Prints an error Toolpack did not expect (not a ToolpackError, or one whose code marks a bug)
 * as one line: it is a bug, in which version, where to report it. The stack helps the report
 * but not the user, so it only follows when TOOLPACK_DEBUG=1.
 */
export async function reportBug(
  error: unknown,
  io: CliIo,
  paint: (style: Style, text: string) => string,
): Promise<void> {
  // A broken install must not hide the error being reported.
  const cli = await findCliPackage().catch(() => undefined);
  const what = error instanceof Error ? error.message : String(error);
  const version = cli === undefined ? '' : ` ${cli.version}`;
  const where = cli?.bugsUrl === undefined ? '' : `; please report it at ${cli.bugsUrl}`;
  const stack =
    io.env[DEBUG_ENV_VARIABLE] === '1' && error instanceof Error ? error.stack : undefined;
  const how =
    stack === undefined ? ` (set ${DEBUG_ENV_VARIABLE}=1 to see the stack)` : ', with this stack:';
  io.stderr.write(
    `${paint('red', 'error')} internal error (a bug in Toolpack${version}, not in your input): ${what}${where}${how}\n`,
  );
  if (stack !== undefined) io.stderr.write(`${paint('dim', stack)}\n`);
}
