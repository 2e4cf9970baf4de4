import { Command } from 'commander';
import type { CliIo } from '../../io.ts';
import { routeCommandOutput } from '../../route-command-output.ts';
import { createNewPackCommand } from './pack/command.ts';
import { createNewToolCommand } from './tool/command.ts';

export function createNewCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('new').description(
    'Create a tool or a pack from a template that mcp check accepts and whose test passes',
  );
  for (const make of [createNewToolCommand, createNewPackCommand]) {
    command.addCommand(routeCommandOutput(make(io, done), io));
  }
  command.addHelpText(
    'after',
    `
Examples:
  mcp new tool send-notification --kind folder --lang ps1 --dir systems/mcp/tools
  mcp new tool Get-DiskUsage --kind script --lang ps1 --dir scripts
  mcp new pack weather`,
  );
  return command;
}
