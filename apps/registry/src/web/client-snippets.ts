import type { PackPermissions } from '@toolpack/core';
import { defaultAlias, type EnvRequirement } from '@toolpack/packs';

export interface ClientSnippetInput {
  name: string;
  /** Set when the page pins a version: the snippet then serves exactly it. */
  version?: string;
  /** The gallery's public URL: `mcp serve --pack` asks it for the pack. */
  registryUrl: string;
  env: readonly EnvRequirement[];
  permissions: PackPermissions | undefined;
}

export interface ClientSnippets {
  /** `claude_desktop_config.json`'s server entry. */
  claudeDesktop: string;
  /** VS Code's `.vscode/mcp.json`, secrets asked for by VS Code and stored by it. */
  vscode: string;
}

const PROJECT_PLACEHOLDER = '/path/to/your/project';

/**
 * Client configurations that start `mcp serve --pack` for one pack: what a user pastes into
 * Claude Desktop or VS Code. A pack granted the project folder gets `-C`, since clients may
 * start servers in `/`, which `serve --pack` refuses for such a pack.
 */
export function buildClientSnippets(input: ClientSnippetInput): ClientSnippets {
  const server = defaultAlias(input.name);
  const pack = input.version === undefined ? input.name : `${input.name}@${input.version}`;
  const filesystem = input.permissions?.filesystem;
  const usesProject = [...(filesystem?.read ?? []), ...(filesystem?.write ?? [])].some(
    (entry) => entry === 'project' || entry.startsWith('project/'),
  );
  const args = [
    ...(usesProject ? ['-C', PROJECT_PLACEHOLDER] : []),
    'serve',
    '--pack',
    pack,
    '--registry',
    input.registryUrl,
  ];
  const placeholder = (env: EnvRequirement) =>
    `<${env.description ?? `your ${env.name}`}>`.replace(/\s+/g, ' ');
  const claudeEnv = Object.fromEntries(input.env.map((env) => [env.name, placeholder(env)]));
  const claudeDesktop = {
    mcpServers: {
      [server]: {
        command: 'mcp',
        args,
        ...(input.env.length === 0 ? {} : { env: claudeEnv }),
      },
    },
  };
  const inputId = (env: EnvRequirement) => `${server}-${env.name.toLowerCase().replace(/_/g, '-')}`;
  const secrets = input.env.filter((env) => env.secret);
  const vscode = {
    ...(secrets.length === 0
      ? {}
      : {
          inputs: secrets.map((env) => ({
            type: 'promptString',
            id: inputId(env),
            description: env.description ?? env.name,
            password: true,
          })),
        }),
    servers: {
      [server]: {
        type: 'stdio',
        command: 'mcp',
        args,
        ...(input.env.length === 0
          ? {}
          : {
              env: Object.fromEntries(
                input.env.map((env) => [
                  env.name,
                  env.secret ? `\${input:${inputId(env)}}` : placeholder(env),
                ]),
              ),
            }),
      },
    },
  };
  return {
    claudeDesktop: JSON.stringify(claudeDesktop, null, 2),
    vscode: JSON.stringify(vscode, null, 2),
  };
}
