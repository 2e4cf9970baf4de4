import path from 'node:path';
import { Command } from 'commander';
import { ToolpackError } from '@toolpack/core';
import {
  createHttpRegistry,
  isHttpUrl,
  readManifest,
  RegistryError,
  resolveRegistryLocation,
} from '@toolpack/packs';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { packForCli } from './pack.ts';
import { addRegistryOption } from './shared.ts';

export function createPublishCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('publish')
    .description('Pack a folder and upload it to a registry (POST /v0/packs)')
    .argument('[dir]', 'the pack folder (holds toolpack.yaml)', '.')
    .option('--token <token>', 'the publish token (default: $TOOLPACK_TOKEN)');
  addRegistryOption(command);
  command.addHelpText(
    'after',
    `
Examples:
  TOOLPACK_TOKEN=... mcp pack publish registry/packs/jira --registry https://packs.example.com
  mcp pack publish . --registry http://127.0.0.1:4873 --token "$TOKEN"

The registry refuses an existing version (409), another owner's name (403), a missing or bad
token (401) and a pack with problems (422, each listed).

Exit codes: 0 published, 1 the pack has problems or the registry refused it, 2 bad input.`,
  );
  command.action(async (dirArgument: string, flags: { token?: string; registry?: string }) => {
    const dir = path.resolve(io.cwd, dirArgument);
    const token = flags.token ?? io.env.TOOLPACK_TOKEN;
    if (token === undefined || token === '') {
      throw new ToolpackError('E_USAGE', 'Publishing needs a token.', {
        hint: 'Pass --token <token> or set TOOLPACK_TOKEN.',
      });
    }
    const manifest = await readManifest(io.cwd);
    const { location } = resolveRegistryLocation({
      flag: flags.registry,
      env: io.env,
      manifestRegistry: manifest.manifest?.registry,
      cwd: io.cwd,
    });
    if (!isHttpUrl(location)) {
      throw new ToolpackError(
        'E_USAGE',
        `Cannot publish to ${location}: publishing needs a registry URL.`,
        {
          hint: 'A folder registry is a folder of pack sources: copy the pack folder into it instead.',
        },
      );
    }
    const result = await packForCli(io, dir);
    if (result === undefined) {
      done(EXIT_FAILURE);
      return;
    }
    const { packed } = result;
    try {
      const doc = await createHttpRegistry({ url: location }).publish(packed.tarball, { token });
      const paint = createPainter(io.stdout, io.env);
      io.stdout.write(
        `${paint('green', 'published')} ${doc.name}@${doc.version} to ${location} (${doc.tools.length} tools, ${doc.dist.integrity})\n`,
      );
      done(EXIT_OK);
    } catch (error) {
      if (!(error instanceof RegistryError)) throw error;
      const paint = createPainter(io.stderr, io.env);
      io.stderr.write(`${paint('red', 'error')} ${error.message}\n`);
      for (const problem of error.problems) {
        const where =
          problem.path === undefined
            ? ''
            : `${problem.path}${problem.line === undefined ? '' : `:${problem.line}`}: `;
        io.stderr.write(`  - ${where}${problem.message}\n`);
      }
      if (error.hint !== undefined) io.stderr.write(`${paint('dim', `hint: ${error.hint}`)}\n`);
      done(EXIT_FAILURE);
    }
  });
  return command;
}
