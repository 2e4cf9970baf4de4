import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import { describeUnpublishedCli } from '../../../describe-unpublished.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { addRegistryOption } from '../registry-option.ts';
import { getServerJson } from './index.ts';

export function createServerJsonCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('server-json')
    .description(
      'Print the server.json (official MCP Registry format) of a pack version: this CLI serving it with mcp serve --pack',
    )
    .argument('<name[@version]>', 'the pack, optionally a version or range (default: the latest)')
    .option(
      '--namespace <reverse-dns>',
      "the registry's server namespace, when it is not dev.toolpack (jira -> <namespace>/jira)",
    );
  addRegistryOption(command);
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack server-json jira
  mcp pack server-json acme/jira@1.2.0 --registry https://packs.example.com --namespace com.example.packs

The document names the npm package @toolpack/cli, which is not on the npm registry yet: a
warning on stderr says so, with the mcp serve command that serves the same pack version.

Exit codes: 0 printed, 1 no such pack or version, 2 bad input.`,
  );
  command.action(async (specifier: string, flags: { registry?: string; namespace?: string }) => {
    const document = await getServerJson({
      cwd: io.cwd,
      env: io.env,
      specifier,
      ...(flags.registry === undefined ? {} : { registry: flags.registry }),
      ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
    });
    io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    // The document is right for a registry, but the package it names is not on npm yet.
    for (const entry of document.packages) {
      const serve = entry.packageArguments
        .flatMap((argument) =>
          argument.name === undefined ? [argument.value] : [argument.name, argument.value],
        )
        .join(' ');
      io.stderr.write(
        `${createPainter(io.stderr, io.env)('yellow', 'warning')} ${describeUnpublishedCli(entry.version)}: \`mcp ${serve}\` serves this pack version.\n`,
      );
    }
    done(EXIT_OK);
  });
  return command;
}
