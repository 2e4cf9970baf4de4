interface PackSource {
  key: 'tools' | 'scripts' | 'module';
  /** Relative to the pack folder, with `/`. */
  path: string;
}

const SOURCE_COMMENTS: Record<PackSource['key'], string> = {
  tools: 'dotbot tool folders: <kebab-name>/metadata.yaml + script.<ext>',
  scripts: 'a script root: every script with comment-based help or PARAM lines is a tool',
  module: 'every exported tool of this module',
};

export function renderPackManifest(options: {
  name: string;
  description: string;
  source: PackSource;
  /** BASIC tools run only with an interpreter the pack names. */
  basic: boolean;
}): string {
  const { name, description, source, basic } = options;
  return `# A Toolpack pack. mcp check lists its tools, mcp test runs their tests, mcp pack pack .
# makes the .tgz and mcp pack publish . shares it; users get it with mcp pack add ${name}.
name: ${name}
version: 0.1.0
description: ${JSON.stringify(description)}
tags: [MCPTools]
sources:
  - ${source.key}: ${source.path} # ${SOURCE_COMMENTS[source.key]}
${
  basic
    ? `# BASIC tools need an interpreter; the script path is appended to this command:
# interpreters:
#   .bas: [your-basic, --run]
`
    : ''
}`;
}

export function renderPackReadme(options: {
  name: string;
  description: string;
  tools: { name: string; description: string }[];
  /** `weather_`: what the pack's tools are served as, before their own name. */
  servedPrefix: string;
  source: PackSource;
}): string {
  const { name, description, tools, servedPrefix, source } = options;
  const escapeCell = (text: string) => text.replace(/\|/g, '\\|');
  return `# ${name}

${description}

| tool | what it does |
| --- | --- |
${tools.map((tool) => `| \`${tool.name}\` | ${escapeCell(tool.description)} |`).join('\n')}

## Use it

\`\`\`sh
mcp pack add ${name}
\`\`\`

Its tools are served as \`${servedPrefix}<tool>\` next to your own.

## Work on it

The tools live in \`${source.path}\` (see \`sources:\` in \`toolpack.yaml\`).

\`\`\`sh
mcp check            # every tool loads; each problem comes with its fix
mcp test             # each tool's test, and a smoke test for tools without one
mcp pack pack .      # the .tgz and its sha512 integrity
mcp pack publish .   # share it (needs a registry token)
\`\`\`

Bump \`version\` in \`toolpack.yaml\` before publishing again: published versions never change.
`;
}
