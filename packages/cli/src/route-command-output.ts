import type { Command } from 'commander';
import type { CliIo } from './io.ts';

/**
 * Makes `command` throw instead of exiting and write its help and errors to `io`, so the
 * CLI runs inside tests and library callers. Every command needs it: commander's
 * `addCommand` does not pass these settings down (its `.command()` would).
 */
export function routeCommandOutput(command: Command, io: CliIo): Command {
  return command.exitOverride().configureOutput({
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
  });
}
