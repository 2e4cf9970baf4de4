import { Command } from 'commander';
import { formatBytes } from '@toolpack/packs';
import { EXIT_FAILURE, EXIT_OK } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { plural, writeDiagnostics } from '../render-pack-output.ts';
import { packFolder } from './index.ts';

export function createPackPackCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('pack')
    .description('Make a reproducible .tgz of a pack folder and print its sha512 integrity')
    .argument('[dir]', 'the pack folder (holds toolpack.yaml)', '.')
    .option(
      '-o, --out <path>',
      'the .tgz to write, or a folder for <name>-<version>.tgz (default: the current folder)',
    )
    .option(
      '--json',
      'print {"name", "version", "file", "integrity", "size", "unpackedSize", "files", "tools"}',
    );
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack pack registry/packs/jira
  mcp pack pack . --out dist/

Every entry is under package/, sorted, with fixed mtimes and modes: packing the same folder
twice gives the same bytes. Left out: .git, node_modules, .toolpack, .env*, *.pem, *.key,
id_rsa*, *.tgz, and what .toolpackignore lists (.gitignore syntax).

Exit codes: 0 packed, 1 the pack has problems (each printed), 2 bad input.`,
  );
  command.action(async (dir: string, flags: { out?: string; json?: boolean }) => {
    const { packed } = await packFolder({
      cwd: io.cwd,
      dir,
      ...(flags.out === undefined ? {} : { out: flags.out }),
      onPacked: (diagnostics) => writeDiagnostics(io, diagnostics),
    });
    if (packed === undefined) {
      done(EXIT_FAILURE);
      return;
    }
    const { description, ...json } = packed;
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      const paint = createPainter(io.stdout, io.env);
      io.stdout.write(
        [
          `${paint('bold', `${packed.name}@${packed.version}`)}  ${description}`,
          `  ${plural(packed.files.length, 'file')}, ${formatBytes(packed.unpackedSize)} unpacked, ${formatBytes(packed.size)} packed`,
          `  ${plural(packed.tools.length, 'tool')}: ${packed.tools.join(', ')}`,
          `  integrity: ${packed.integrity}`,
          `wrote ${packed.file}`,
          '',
        ].join('\n'),
      );
    }
    done(EXIT_OK);
  });
  return command;
}
