import { Command } from 'commander';
import { EXIT_FAILURE, EXIT_OK } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { addRegistryOption } from '../registry-option.ts';
import { writeDiagnostics } from '../render-pack-output.ts';
import { publishPack } from './index.ts';

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
  command.action(async (dir: string, flags: { token?: string; registry?: string }) => {
    const { location, published, refused } = await publishPack({
      cwd: io.cwd,
      env: io.env,
      dir,
      ...(flags.token === undefined ? {} : { token: flags.token }),
      ...(flags.registry === undefined ? {} : { registry: flags.registry }),
      onPacked: (diagnostics) => writeDiagnostics(io, diagnostics),
    });
    if (published !== undefined) {
      const paint = createPainter(io.stdout, io.env);
      io.stdout.write(
        `${paint('green', 'published')} ${published.name}@${published.version} to ${location} (${published.tools.length} tools, ${published.dist.integrity})\n`,
      );
      done(EXIT_OK);
      return;
    }
    if (refused !== undefined) {
      const paint = createPainter(io.stderr, io.env);
      io.stderr.write(`${paint('red', 'error')} ${refused.message}\n`);
      for (const problem of refused.problems) {
        const where =
          problem.path === undefined
            ? ''
            : `${problem.path}${problem.line === undefined ? '' : `:${problem.line}`}: `;
        io.stderr.write(`  - ${where}${problem.message}\n`);
      }
      if (refused.hint !== undefined) io.stderr.write(`${paint('dim', `hint: ${refused.hint}`)}\n`);
    }
    done(EXIT_FAILURE);
  });
  return command;
}
