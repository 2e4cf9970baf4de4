import { Option, type Command } from 'commander';

const REGISTRY_HELP =
  'a registry URL or a folder of packs (default: $TOOLPACK_REGISTRY, else registry: in toolpack.yaml, else http://127.0.0.1:4873)';

/** `--registry`, the same for every `mcp pack` subcommand that talks to a registry. */
export function addRegistryOption(command: Command): Command {
  return command.addOption(new Option('--registry <url|dir>', REGISTRY_HELP));
}

const SOURCE_HELP =
  'a NuGet feed of PowerShell modules: the name of a feed in toolpack.yaml (feeds:), a v3 index.json URL, a v2 URL (https://www.powershellgallery.com/api/v2), or a folder of .nupkg files';

/** `--source`: a NuGet feed instead of the Toolpack registry. */
export function addSourceOption(command: Command): Command {
  return command.addOption(new Option('--source <feed>', SOURCE_HELP).conflicts('registry'));
}
