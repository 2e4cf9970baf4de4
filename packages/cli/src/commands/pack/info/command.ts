import { Command } from 'commander';
import { describePermissions } from '@toolpack/core';
import { describeInterpreters, sortVersionsDescending, type VersionDoc } from '@toolpack/packs';
import { EXIT_OK } from '../../../exit-codes.ts';
import { createPainter, type CliIo } from '../../../io.ts';
import { addRegistryOption, addSourceOption } from '../registry-option.ts';
import { plural } from '../render-pack-output.ts';
import { getPackInfo, type PackInfo } from './index.ts';

export function createInfoCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('info')
    .description(
      'Show a pack: versions, deprecations, env it needs, its permissions, and each tool with its schema',
    )
    .argument('<name[@version]>', 'the pack, optionally a version or range (default: the latest)')
    .option(
      '--json',
      'print {"pack": PackDoc, "version": VersionDoc, "from": {...}, "installed": [...]}',
    );
  addRegistryOption(command);
  addSourceOption(command);
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack info jira
  mcp pack info jira@1.0.0 --json
  mcp pack info EchoTools --source https://www.powershellgallery.com/api/v2

Also shows where this project's install of the pack came from (toolpack.lock).

Exit codes: 0 shown, 1 no such pack or version, 2 bad input.`,
  );
  command.action(
    async (specifier: string, flags: { json?: boolean; registry?: string; source?: string }) => {
      const info = await getPackInfo({
        cwd: io.cwd,
        env: io.env,
        specifier,
        ...(flags.registry === undefined ? {} : { registry: flags.registry }),
        ...(flags.source === undefined ? {} : { source: flags.source }),
      });
      if (flags.json) {
        io.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
        done(EXIT_OK);
        return;
      }
      io.stdout.write(renderInfo(info, io));
      done(EXIT_OK);
    },
  );
  return command;
}

function renderInfo(info: PackInfo, io: CliIo): string {
  const { version: doc, from } = info;
  const latest = info.pack.latest;
  const versions: VersionDoc[] = Object.values(info.pack.versions);
  const paint = createPainter(io.stdout, io.env);
  const lines: string[] = [];
  lines.push(`${paint('bold', `${doc.name}@${doc.version}`)}  ${doc.description}`);
  lines.push(
    from.kind === 'nuget'
      ? `from: the NuGet feed ${from.location} (the PowerShell module ${from.id ?? doc.name})`
      : `from: the registry ${from.location}`,
  );
  for (const installed of info.installed) {
    lines.push(
      `installed here as ${installed.alias}: ${installed.version} from ${installed.source === undefined ? installed.resolved : `the feed ${installed.source} (${installed.id === undefined ? '' : `${installed.id}, `}${installed.resolved})`}`,
    );
  }
  if (doc.deprecated !== undefined) lines.push(paint('yellow', `deprecated: ${doc.deprecated}`));
  if (doc.yanked) lines.push(paint('red', 'yanked: ranges no longer resolve to this version'));
  if (doc.tags.length > 0) lines.push(`tags: ${doc.tags.join(', ')}`);
  const byVersion = new Map(versions.map((v) => [v.version, v]));
  const described = sortVersionsDescending([...byVersion.keys()]).map((version) => {
    const v = byVersion.get(version)!;
    const marks = [
      version === latest ? 'latest' : undefined,
      v.deprecated === undefined ? undefined : 'deprecated',
      v.yanked ? 'yanked' : undefined,
    ].filter(Boolean);
    return marks.length === 0 ? version : `${version} (${marks.join(', ')})`;
  });
  lines.push(`versions: ${described.join(', ')}`);
  lines.push(
    from.kind === 'nuget'
      ? `package: ${doc.dist.tarball}${doc.dist.integrity === '' ? '' : `, ${doc.dist.integrity}`}`
      : `tarball: ${doc.dist.fileCount} files, ${doc.dist.size} bytes, ${doc.dist.integrity}`,
  );
  if (doc.env.length > 0) {
    lines.push('env:');
    for (const env of doc.env) {
      const marks = [env.required ? 'required' : 'optional', env.secret ? 'secret' : undefined]
        .filter(Boolean)
        .join(', ');
      lines.push(`  ${env.name} (${marks})${env.description ? ` ${env.description}` : ''}`);
    }
  }
  // The registry's word: `mcp pack add` shows (and refuses a mismatch with) the tarball's own.
  lines.push(
    from.kind === 'nuget'
      ? 'permissions: none declared (a module declares none: it gets the least unless you grant more)'
      : doc.permissions === undefined
        ? 'permissions: not declared (published before permissions existed)'
        : `permissions (as the registry states them):\n${describePermissions(doc.permissions)
            .map((line) => `  ${line}`)
            .join('\n')}`,
  );
  lines.push(...describeInterpreters(doc.interpreters).map((line) => `  ${line}`));
  lines.push(
    `install: mcp pack add ${doc.name}${doc.version === latest ? '' : `@${doc.version}`}${from.source === undefined ? '' : ` --source ${from.source}`}`,
  );
  if (from.kind === 'nuget') {
    lines.push('', 'tools: discovered from the module once it is added');
    return `${lines.join('\n')}\n`;
  }
  lines.push('', paint('bold', plural(doc.tools.length, 'tool')));
  for (const tool of doc.tools) {
    lines.push(`  ${paint('cyan', tool.name)}  ${tool.description}`);
    const hints = Object.entries(tool.annotations ?? {})
      .filter(([key]) => key.endsWith('Hint'))
      .map(([key, value]) => `${key}: ${String(value)}`);
    if (hints.length > 0) lines.push(`    hints: ${hints.join(', ')}`);
    const schema = JSON.stringify(tool.inputSchema, null, 2).split('\n');
    lines.push(`    input: ${schema[0]}`, ...schema.slice(1).map((line) => `    ${line}`));
  }
  return `${lines.join('\n')}\n`;
}
