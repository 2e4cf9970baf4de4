import { Command, InvalidArgumentError } from 'commander';
import { EXIT_OK } from '../../../exit-codes.ts';
import type { CliIo } from '../../../io.ts';
import { collect } from '../../../option-parsers.ts';
import { renderTable } from '../../../render-table.ts';
import { addRegistryOption, addSourceOption } from '../registry-option.ts';
import { plural } from '../render-pack-output.ts';
import { searchRegistry } from './index.ts';

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new InvalidArgumentError('expected a whole number from 1 to 100.');
  return n;
}

export function createSearchCommand(io: CliIo, done: (code: number) => void): Command {
  const command = new Command('search')
    .description('Find packs by words and tags')
    .argument('[words...]', 'words to find in names, descriptions, tags and tools')
    .option(
      '--tag <tag>',
      'only packs with this tag (exact, case-insensitive); repeat for all of several',
      collect,
    )
    .option('--limit <n>', 'at most this many packs (default 20)', parseLimit)
    .option('--json', 'print the registry\'s answer: {"packs": [...], "metadata": {...}}');
  addRegistryOption(command);
  addSourceOption(command);
  command.addHelpText(
    'after',
    `
Examples:
  mcp pack search --tag MCPTools
  mcp pack search jira issues --registry ~/my-packs
  mcp pack search --tag MCPTools --tag jira --json
  mcp pack search --tag MCPTools --source https://www.powershellgallery.com/api/v2

Exit codes: 0 the registry answered (matches or not), 1 it could not be reached.`,
  );
  command.action(
    async (
      words: string[],
      flags: {
        tag?: string[];
        limit?: number;
        json?: boolean;
        registry?: string;
        source?: string;
      },
    ) => {
      const { response, location, source } = await searchRegistry({
        cwd: io.cwd,
        env: io.env,
        words,
        tags: flags.tag ?? [],
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        ...(flags.registry === undefined ? {} : { registry: flags.registry }),
        ...(flags.source === undefined ? {} : { source: flags.source }),
      });
      if (flags.json) {
        io.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
        done(EXIT_OK);
        return;
      }
      // Matches a name cannot add are named with why, never silently dropped.
      const passedOver = response.metadata.passedOver ?? [];
      const passedOverNote =
        passedOver.length === 0
          ? ''
          : `\nAlso matched, but not added by name (Install-PSResource installs them):\n${passedOver
              .map((entry) => `  ${entry.id} ${entry.version}: ${entry.reason}\n`)
              .join('')}`;
      if (response.packs.length === 0) {
        io.stdout.write(`No packs match in ${location}.\n${passedOverNote}`);
        done(EXIT_OK);
        return;
      }
      io.stdout.write(
        renderTable(
          [
            { title: 'NAME', max: 40 },
            { title: 'VERSION', max: 16 },
            { title: 'TOOLS', max: 5 },
            { title: 'TAGS', max: 40 },
            { title: 'DESCRIPTION', max: 200, flex: true },
          ],
          response.packs.map((pack) => [
            pack.name,
            pack.version,
            // A feed lists modules, not tools: those are discovered once one is added.
            source === undefined ? String(pack.toolCount) : '-',
            pack.tags.join(', '),
            pack.description,
          ]),
          Math.max(80, io.stdout.columns ?? 120),
        ),
      );
      const more = response.metadata.nextCursor
        ? ' (more match: add words or tags, or raise --limit)'
        : '';
      io.stdout.write(`\n${plural(response.packs.length, 'pack')} from ${location}${more}\n`);
      io.stdout.write(passedOverNote);
      if (source !== undefined)
        io.stdout.write(`add one with: mcp pack add <name> --source ${source}\n`);
      done(EXIT_OK);
    },
  );
  return command;
}
