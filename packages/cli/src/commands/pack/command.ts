import { Command } from 'commander';
import type { CliIo } from '../../io.ts';
import { routeCommandOutput } from '../../route-command-output.ts';
import { createAddCommand } from './add/command.ts';
import { createAuditCommand } from './audit/command.ts';
import { createInfoCommand } from './info/command.ts';
import { createInstallCommand } from './install/command.ts';
import { createListPacksCommand } from './list/command.ts';
import { createPackPackCommand } from './pack/command.ts';
import { createPublishCommand } from './publish/command.ts';
import { createRemoveCommand } from './remove/command.ts';
import { createSearchCommand } from './search/command.ts';
import { createServerJsonCommand } from './server-json/command.ts';
import { createUpdateCommand } from './update/command.ts';

/** `mcp pack <sub>`: find, add and share tool packs. */
export function createPackCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('pack').description(
    'Find, add, install and share tool packs (toolpack.yaml packs:)',
  );
  for (const make of [
    createSearchCommand,
    createAddCommand,
    createRemoveCommand,
    createListPacksCommand,
    createUpdateCommand,
    createInfoCommand,
    createInstallCommand,
    createAuditCommand,
    createPackPackCommand,
    createPublishCommand,
    createServerJsonCommand,
  ]) {
    command.addCommand(routeCommandOutput(make(io, done), io));
  }
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack search --tag MCPTools
  mcp pack add jira --registry ~/my-packs
  mcp pack list
  mcp pack install --frozen
  mcp pack audit

The registry is --registry, else $TOOLPACK_REGISTRY, else registry: in toolpack.yaml, else
http://127.0.0.1:4873. A folder of pack sources works as a registry too.`,
  );
  return command;
}
