import { Command, InvalidArgumentError } from 'commander';
import { isToolpackError, type SchemaDialect } from '@toolpack/core';
import { EXIT_OK, EXIT_USAGE } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { FLAT_SCHEMAS_NOTE, parseSchemaDialect } from '../../option-parsers.ts';
import {
  CONFIG_CLIENTS,
  configureClient,
  type ClientConfiguration,
  type ConfigClient,
} from './index.ts';

interface ConfigFlags {
  write?: boolean;
  name?: string;
  project?: boolean;
  npx?: boolean;
  schemaDialect?: SchemaDialect;
  flatSchemas?: boolean;
}

function parseClient(value: string): ConfigClient {
  const client = value.toLowerCase();
  if (!(CONFIG_CLIENTS as readonly string[]).includes(client)) {
    throw new InvalidArgumentError(`expected one of ${CONFIG_CLIENTS.join(', ')}.`);
  }
  return client as ConfigClient;
}

function parseName(value: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value))
    throw new InvalidArgumentError('use letters, digits, "_", "-" or "." (at most 64).');
  return value;
}

export function createConfigCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('config')
    .description(
      'Print (or --write) the JSON that registers `mcp serve` for this project with a client',
    )
    .argument('<client>', `one of ${CONFIG_CLIENTS.join(', ')}`, parseClient)
    .option('--write', 'merge the entry into the client’s config file (other servers are kept)')
    .option(
      '--name <name>',
      'the server’s name in the client (default: toolpack-<folder>)',
      parseName,
    )
    .option('--project', 'VS Code/Cursor: use the project’s .vscode/mcp.json or .cursor/mcp.json')
    .option(
      '--npx',
      'start the server with `npx -y @toolpack/cli@<version>` (a config to share, once @toolpack/cli is on npm)',
    )
    .option(
      '--schema-dialect <dialect>',
      'serve with --schema-dialect: exact or openai-strict (portable, the default, adds nothing)',
      parseSchemaDialect,
    )
    .option('--flat-schemas', 'deprecated: --schema-dialect portable, the default');
  command.addHelpText(
    'after',
    `
Examples:
  mcp config claude                # print the entry for Claude Desktop
  mcp config claude --write        # add it to claude_desktop_config.json
  mcp config vscode --project --write
  mcp -C ~/work/jira-tools config cursor --write --name jira
  mcp config vscode --write --schema-dialect openai-strict   # a model in OpenAI's strict mode

Exit codes: 0 printed or written, 2 an unknown client or a config file that is not valid JSON.`,
  );
  command.action(async (client: ConfigClient, flags: ConfigFlags) => {
    const paint = createPainter(io.stderr, io.env);
    if (flags.flatSchemas === true) io.stderr.write(`${paint('dim', FLAT_SCHEMAS_NOTE)}\n`);
    let configured: ClientConfiguration;
    try {
      configured = await configureClient({
        cwd: io.cwd,
        env: io.env,
        client,
        ...(flags.write ? { write: true } : {}),
        ...(flags.name === undefined ? {} : { name: flags.name }),
        ...(flags.project ? { project: true } : {}),
        ...(flags.npx ? { npx: true } : {}),
        ...(flags.schemaDialect === undefined ? {} : { schemaDialect: flags.schemaDialect }),
      });
    } catch (error) {
      // A config file that cannot be merged is the user's to fix: exit 2, not 1.
      if (!isToolpackError(error) || error.code !== 'E_CONFIG') throw error;
      io.stderr.write(`${paint('red', 'error')} ${error.message}\n`);
      if (error.hint !== undefined) io.stderr.write(`${paint('dim', `hint: ${error.hint}`)}\n`);
      done(EXIT_USAGE);
      return;
    }
    const { target, name, entry, outcome, warnings } = configured;
    for (const warning of warnings) io.stderr.write(`${paint('yellow', 'warning')} ${warning}\n`);
    if (outcome === undefined) {
      io.stdout.write(`${JSON.stringify({ [target.container]: { [name]: entry } }, null, 2)}\n`);
      io.stderr.write(
        `${paint('dim', `Add this to ${target.file}, or run again with --write to merge it there.`)}\n`,
      );
      done(EXIT_OK);
      return;
    }
    io.stderr.write(
      outcome === 'unchanged'
        ? `${target.file} already has ${name}; nothing to do.\n`
        : `${outcome === 'added' ? 'Added' : 'Updated'} ${name} in ${target.file}. Restart the client to pick it up.\n`,
    );
    done(EXIT_OK);
  });
  return command;
}
