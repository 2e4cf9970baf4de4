import { Option, type Command } from 'commander';

const REGISTRY_HELP =
  'a registry URL or a folder of packs (default: $TOOLPACK_REGISTRY, else registry: in toolpack.yaml, else http://127.0.0.1:4873)';

/** `--registry`, the same for every `mcp pack` subcommand that talks to a registry. */
export function addRegistryOption(command: Command): Command {
  return command.addOption(new Option('--registry <url|dir>', REGISTRY_HELP));
}
