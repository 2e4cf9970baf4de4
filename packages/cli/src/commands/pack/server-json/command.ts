import { Command } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import type { CliIo } from '../../../io.ts';
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
    done(EXIT_OK);
  });
  return command;
}
