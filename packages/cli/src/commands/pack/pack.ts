import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { ToolpackError, type Diagnostic } from '@toolpack/core';
import { createPackTarball, formatBytes, toFileStem, type PackTarball } from '@toolpack/packs';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { displayPath } from '../../tool-view.ts';
import { discoverPackTools, plural, writeDiagnostics } from './shared.ts';

export interface PackedForCli {
  packed: PackTarball & {
    tarball: Buffer;
    integrity: string;
    manifest: NonNullable<PackTarball['manifest']>;
  };
  tools: string[];
}

/**
 * Packs `dir` and lists its tools with discovery; prints every problem and returns undefined
 * when the pack has errors (a pack whose tools would be refused is not worth sharing).
 */
export async function packForCli(io: CliIo, dir: string): Promise<PackedForCli | undefined> {
  const packed = await createPackTarball({ dir });
  const diagnostics: Diagnostic[] = [...packed.diagnostics];
  let tools: string[] = [];
  if (packed.manifest !== undefined) {
    try {
      const discovered = await discoverPackTools(dir, packed.manifest);
      tools = discovered.tools.map((tool) => tool.name);
      diagnostics.push(...discovered.diagnostics.filter((d) => d.severity !== 'info'));
      if (
        discovered.tools.length === 0 &&
        !discovered.diagnostics.some((d) => d.severity === 'error')
      ) {
        diagnostics.push({
          severity: 'error',
          code: 'E_PACK_NO_TOOLS',
          message: 'The pack serves no tools.',
          path: path.join(dir, 'toolpack.yaml'),
          hint: 'Check its sources: with mcp list in the pack folder.',
        });
      }
    } catch (error) {
      if (!(error instanceof ToolpackError)) throw error;
      diagnostics.push({
        severity: 'error',
        code: error.code,
        message: error.message,
        path: path.join(dir, 'toolpack.yaml'),
        ...(error.hint === undefined ? {} : { hint: error.hint }),
      });
    }
  }
  writeDiagnostics(io, diagnostics);
  if (packed.tarball === undefined || diagnostics.some((d) => d.severity === 'error'))
    return undefined;
  return { packed: packed as PackedForCli['packed'], tools };
}

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
  command.action(async (dirArgument: string, flags: { out?: string; json?: boolean }) => {
    const dir = path.resolve(io.cwd, dirArgument);
    const result = await packForCli(io, dir);
    if (result === undefined) {
      done(EXIT_FAILURE);
      return;
    }
    const { packed, tools } = result;
    const fileName = `${toFileStem(packed.manifest.name)}-${packed.manifest.version}.tgz`;
    let target = path.resolve(io.cwd, flags.out ?? '.');
    const isDir =
      flags.out === undefined ||
      flags.out.endsWith('/') ||
      (await stat(target).then(
        (s) => s.isDirectory(),
        () => false,
      ));
    if (isDir) target = path.join(target, fileName);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, packed.tarball);
    if (flags.json) {
      io.stdout.write(
        `${JSON.stringify(
          {
            name: packed.manifest.name,
            version: packed.manifest.version,
            file: displayPath(target, io.cwd),
            integrity: packed.integrity,
            size: packed.tarball.length,
            unpackedSize: packed.unpackedSize,
            files: packed.files,
            tools,
          },
          null,
          2,
        )}\n`,
      );
    } else {
      const paint = createPainter(io.stdout, io.env);
      io.stdout.write(
        [
          `${paint('bold', `${packed.manifest.name}@${packed.manifest.version}`)}  ${packed.manifest.description}`,
          `  ${plural(packed.files.length, 'file')}, ${formatBytes(packed.unpackedSize)} unpacked, ${formatBytes(packed.tarball.length)} packed`,
          `  ${plural(tools.length, 'tool')}: ${tools.join(', ')}`,
          `  integrity: ${packed.integrity}`,
          `wrote ${displayPath(target, io.cwd)}`,
          '',
        ].join('\n'),
      );
    }
    done(EXIT_OK);
  });
  return command;
}
