import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { isToolpackError } from '@toolpack/core';
import { createCallCommand } from './commands/call.ts';
import { createCheckCommand } from './commands/check.ts';
import { createListCommand } from './commands/list.ts';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import { createPainter, type CliIo } from './io.ts';

// Library errors that mean "your input is wrong" rather than "the work failed".
const USAGE_ERROR_CODES = new Set([
  'E_SOURCE_MISSING',
  'E_MANIFEST',
  'E_USAGE',
  'E_UNKNOWN_TOOL',
  'E_ARGUMENTS_JSON',
]);

/** Runs `mcp` with `argv` (without node and script) and returns the exit code. */
export async function runCli(argv: readonly string[], outerIo: CliIo): Promise<number> {
  // Commands read `io.cwd` when they run, after `-C` has been applied.
  const io: CliIo = { ...outerIo };
  let exitCode = EXIT_OK;
  const done = (code: number) => {
    exitCode = code;
  };
  const program = new Command('mcp')
    .description('Turn folders of scripts, modules and workflows into MCP tools.')
    .version(await readVersion(), '-v, --version')
    .option('-C, --dir <dir>', 'run as if mcp was started in <dir>')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the result is a failure, 2 bad usage or input.\nRun `mcp <command> --help` for examples.',
    );
  program.hook('preAction', () => {
    const { dir } = program.opts<{ dir?: string }>();
    if (dir !== undefined) io.cwd = path.resolve(outerIo.cwd, dir);
  });
  for (const make of [createListCommand, createCheckCommand, createCallCommand]) {
    program.addCommand(
      make(io, done)
        .exitOverride()
        .configureOutput({
          writeOut: (text) => io.stdout.write(text),
          writeErr: (text) => io.stderr.write(text),
        }),
    );
  }

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      ) {
        return EXIT_OK;
      }
      return EXIT_USAGE;
    }
    const paint = createPainter(io.stderr, io.env);
    if (isToolpackError(error)) {
      const where = error.location === undefined ? '' : `${error.location}: `;
      io.stderr.write(`${paint('red', 'error')} ${where}${error.message}\n`);
      if (error.hint !== undefined) io.stderr.write(`${paint('dim', `hint: ${error.hint}`)}\n`);
      return USAGE_ERROR_CODES.has(error.code) ? EXIT_USAGE : EXIT_FAILURE;
    }
    io.stderr.write(`${paint('red', 'error')} ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT_FAILURE;
  }
}

async function readVersion(): Promise<string> {
  const manifest = JSON.parse(
    await readFile(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return manifest.version;
}
