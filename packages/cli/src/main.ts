import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, exitCodeForError } from './exit-codes.ts';
import { findCliPackage } from './find-cli-package.ts';
import { createPainter, type CliIo } from './io.ts';
import { reportBug } from './report-bug.ts';
import { routeCommandOutput } from './route-command-output.ts';

type CommandFactory = (io: CliIo, done: (code: number) => void) => Command;

// Each command is loaded only when it runs (or for help): `mcp list` must not pay for the
// MCP SDK. Start-up is what every client that spawns us waits on. (Every command that reads a
// project still loads tar, through @toolpack/packs' index: a start-up cost for issue 20.)
const COMMANDS: Record<string, () => Promise<CommandFactory>> = {
  list: async () => (await import('./commands/list/command.ts')).createListCommand,
  check: async () => (await import('./commands/check/command.ts')).createCheckCommand,
  call: async () => (await import('./commands/call/command.ts')).createCallCommand,
  inspect: async () => (await import('./commands/inspect/command.ts')).createInspectCommand,
  doctor: async () => (await import('./commands/doctor/command.ts')).createDoctorCommand,
  serve: async () => (await import('./commands/serve/index.ts')).createServeCommand,
  config: async () => (await import('./commands/config/command.ts')).createConfigCommand,
  pack: async () => (await import('./commands/pack/command.ts')).createPackCommand,
  new: async () => (await import('./commands/new/command.ts')).createNewCommand,
  test: async () => (await import('./commands/tool-tests/command.ts')).createTestCommand,
  'eval-search': async () =>
    (await import('./commands/eval-search/command.ts')).createEvalSearchCommand,
};

/** The command `argv` runs, when it names one; otherwise every command (help, suggestions). */
function pickCommands(argv: readonly string[]): string[] {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-C' || arg === '--dir') {
      i++;
      continue;
    }
    if (arg.startsWith('-')) {
      if (arg === '-v' || arg === '--version') return [];
      continue;
    }
    return arg in COMMANDS ? [arg] : Object.keys(COMMANDS);
  }
  return Object.keys(COMMANDS);
}

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
    .version((await findCliPackage()).version, '-v, --version')
    .option('-C, --dir <dir>', 'run as if mcp was started in <dir>')
    .showSuggestionAfterError()
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the result is a failure, 2 bad usage or input.\nRun `mcp <command> --help` for examples.',
    );
  program.hook('preAction', () => {
    const { dir } = program.opts<{ dir?: string }>();
    if (dir !== undefined) io.cwd = path.resolve(outerIo.cwd, dir);
  });
  const factories = await Promise.all(pickCommands(argv).map((name) => COMMANDS[name]!()));
  routeCommandOutput(program, io);
  for (const make of factories) program.addCommand(routeCommandOutput(make(io, done), io));

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
    const { describeErrorCode, isToolpackError } = await import('@toolpack/core');
    if (isToolpackError(error)) {
      const exitClass = describeErrorCode(error.code)?.exit;
      if (exitClass !== 'bug') {
        const where = error.location === undefined ? '' : `${error.location}: `;
        io.stderr.write(`${paint('red', 'error')} ${where}${error.message}\n`);
        if (error.hint !== undefined) io.stderr.write(`${paint('dim', `hint: ${error.hint}`)}\n`);
        return exitCodeForError(exitClass);
      }
    }
    // Anything else is Toolpack's own mistake, not the user's: say so and where to report it.
    await reportBug(error, io, paint);
    return EXIT_FAILURE;
  }
}
