import type { ToolNames } from './tool-names.ts';

/**
 * What every scaffolded tool does, in every language: take one required `text` and answer
 * `{ text, characters }`. Small enough to replace, real enough that its test proves the
 * whole path (discovery, schema, runner, result) works.
 */
export const SAMPLE = { text: 'hello', characters: 5 } as const;

export interface TemplateInput {
  names: ToolNames;
  /** One line; the templates escape it for their format. */
  description: string;
}

/** One line, whatever the user typed. */
export function toOneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

// JSON strings are valid YAML double-quoted scalars and valid JS string literals.
const quoteJson = (text: string): string => JSON.stringify(text);
// PARAM/DESCRIPTION headers: `\"` is a quote and `\\` a backslash inside a quoted text.
const quoteHeader = (text: string): string => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
// MCPServerPS's hint form: the key's presence declares the hint, the text says why it holds.
const READ_ONLY_NOTE = 'ReadOnlyHint: Reads the text it is given and changes nothing.';
// Comment-based help ends at the first `#>`.
const helpText = (text: string): string => text.replace(/#>/g, '# >').replace(/<#/g, '< #');
const quotePowerShell = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** `{ text: 'hello', characters: 5 }`: a plain value as the JS a person would write. */
function toJsLiteral(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  if (Array.isArray(value)) return `[${value.map(toJsLiteral).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(
      ([key, item]) =>
        `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${toJsLiteral(item)}`,
    );
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

// ---------------------------------------------------------------- dotbot tool folders

export function renderFolderMetadata({ names, description }: TemplateInput): string {
  return `# The tool's definition: clients show the description to the model, which picks tools by it,
# and validate every call against inputSchema before the script runs.
name: ${names.snake}
description: ${quoteJson(description)}
inputSchema:
  type: object
  properties:
    text:
      type: string
      description: The text to work on.
      minLength: 1
      examples: [${SAMPLE.text}]
  required: [text]
  additionalProperties: false
annotations:
  readOnlyHint: true
`;
}

export function renderFolderPowerShell({ names }: TemplateInput): string {
  return `# Toolpack (like dotbot) dot-sources this file and calls
#   ${names.invokeFunction} -Arguments @{ text = '...' }
# $global:ToolpackProjectRoot (and $global:DotbotProjectRoot) hold the project root.
function ${names.invokeFunction} {
    param(
        [hashtable]$Arguments
    )
    $text = [string]$Arguments.text
    # What the function returns is the result: a hashtable reaches the client as JSON.
    @{ text = $text; characters = $text.Length }
}
`;
}

const STDIN_NOTE =
  'The arguments arrive as one JSON object on stdin; JSON printed on stdout is the result.';

export function renderFolderShell({ names }: TemplateInput): string {
  return `#!/usr/bin/env bash
# ${STDIN_NOTE}
# $TOOLPACK_PROJECT_ROOT is the project root. Exit non-zero (message on stderr) to fail the call.
set -euo pipefail
args=$(cat)
printf '{"tool": "${names.snake}", "received": %s}\\n' "$args"
`;
}

export function renderFolderPython(_input: TemplateInput): string {
  return `#!/usr/bin/env python3
# ${STDIN_NOTE}
# TOOLPACK_PROJECT_ROOT in the environment is the project root.
import json
import sys

args = json.load(sys.stdin)
text = str(args["text"])
print(json.dumps({"text": text, "characters": len(text)}))
`;
}

/** Neither import nor require: the same file runs as CommonJS or as an ES module. */
export function renderFolderJavaScript(typed: boolean): string {
  return `// ${STDIN_NOTE}
// process.env.TOOLPACK_PROJECT_ROOT is the project root.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk${typed ? ': string' : ''}) => (input += chunk));
process.stdin.on('end', () => {
  const { text } = JSON.parse(input)${typed ? ' as { text: string }' : ''};
  process.stdout.write(\`\${JSON.stringify({ text, characters: text.length })}\\n\`);
});
`;
}

// ---------------------------------------------------------------- script roots

export function renderScriptPowerShell({ names, description }: TemplateInput): string {
  return `<#
.SYNOPSIS
${helpText(description)}
.PARAMETER Text
The text to work on.
.EXAMPLE
./${names.verbNoun}.ps1 -Text ${SAMPLE.text}
.NOTES
${READ_ONLY_NOTE}
#>
param(
    [Parameter(Mandatory)]
    [ValidateLength(1, 10000)]
    [string]$Text
)
# What the script outputs is the result: a hashtable reaches the client as JSON.
@{ text = $Text; characters = $Text.Length }
`;
}

function headerLines(prefix: string, description: string): string {
  return `${prefix} DESCRIPTION ${quoteHeader(description)}
${prefix} PARAM text AS string LIKE "${SAMPLE.text}" DESCRIPTION "The text to work on."
${prefix} HINTS readOnly`;
}

export function renderScriptShell({ names, description }: TemplateInput): string {
  return `#!/usr/bin/env bash
${headerLines('#', description)}
# ${STDIN_NOTE}
set -euo pipefail
args=$(cat)
printf '{"tool": "${names.snake}", "received": %s}\\n' "$args"
`;
}

export function renderScriptPython({ description }: TemplateInput): string {
  return `#!/usr/bin/env python3
${headerLines('#', description)}
# ${STDIN_NOTE}
import json
import sys

args = json.load(sys.stdin)
text = str(args["text"])
print(json.dumps({"text": text, "characters": len(text)}))
`;
}

export function renderScriptJavaScript(input: TemplateInput, typed: boolean): string {
  return `${headerLines('//', input.description)}
${renderFolderJavaScript(typed)}`;
}

// ---------------------------------------------------------------- modules

export function renderPowerShellModule({ names, description }: TemplateInput): string {
  return `# A PowerShell module: every exported function is a tool. All tools of one module share
# one runspace, so $script: variables keep their values between calls (one call at a time).

function ${names.verbNoun} {
    <#
    .SYNOPSIS
    ${helpText(description)}
    .PARAMETER Text
    The text to work on.
    .NOTES
    ${READ_ONLY_NOTE}
    #>
    param(
        [Parameter(Mandatory)]
        [ValidateLength(1, 10000)]
        [string]$Text
    )
    @{ text = $Text; characters = $Text.Length }
}

Export-ModuleMember -Function ${names.verbNoun}
`;
}

export function renderJsModule({ names, description }: TemplateInput): string {
  return `import { defineTool } from '@toolpack/core';
import { z } from 'zod';

// Every exported defineTool(...) value is a tool. All tools of one module share one child process.
export const ${names.camel} = defineTool({
  name: '${names.snake}',
  description: ${quoteJson(description)},
  input: z.object({
    text: z.string().min(1).describe('The text to work on.').meta({ examples: ['${SAMPLE.text}'] }),
  }),
  annotations: { readOnlyHint: true },
  run: ({ text }) => ({ text, characters: text.length }),
});
`;
}

// ---------------------------------------------------------------- BASIC

export function renderBasic({ description }: TemplateInput): string {
  return `PARAM text AS string LIKE "${SAMPLE.text}" DESCRIPTION "The text to work on."
DESCRIPTION ${quoteHeader(description)}
HINTS readOnly

TALK "You said: " + text
RETURN text
`;
}

// ---------------------------------------------------------------- tests

/**
 * A dotbot-style test: \`mcp test\` runs it with a server serving the tool and the helper
 * \`Invoke-ToolpackTool\` dot-sourced; it fails when it throws or exits non-zero.
 */
export function renderPowerShellTest(options: {
  toolName: string;
  parameter: string;
  runWith: string;
}): string {
  const { toolName, parameter, runWith } = options;
  return `# Run with: ${runWith}
# mcp test starts an MCP server with this tool ($env:TOOLPACK_TEST_SERVER) and dot-sources
# Invoke-ToolpackTool and Assert-ToolpackEqual. The test fails when it throws or exits non-zero.
if (-not (Get-Command Invoke-ToolpackTool -ErrorAction SilentlyContinue)) {
    throw ${quotePowerShell(`Run this test with: ${runWith}`)}
}

$result = Invoke-ToolpackTool -Name ${toolName} -Arguments @{ ${parameter} = '${SAMPLE.text}' }
Assert-ToolpackEqual -Actual $result.structuredContent.text -Expected '${SAMPLE.text}' -Message 'echoes the text'
Assert-ToolpackEqual -Actual $result.structuredContent.characters -Expected ${SAMPLE.characters} -Message 'counts the characters'

# Failures come back as results with isError; -AllowError returns them instead of throwing.
$refused = Invoke-ToolpackTool -Name ${toolName} -Arguments @{} -AllowError
Assert-ToolpackEqual -Actual $refused.isError -Expected $true -Message 'refuses a call without ${parameter}'
`;
}

/**
 * A node:test file that calls the tool through the server \`mcp test\` starts, so it checks
 * what a client gets (schema validation included), whatever language the tool is in.
 */
export function renderServerNodeTest(options: {
  toolName: string;
  /** The result the sample call must give. */
  expected: Record<string, unknown>;
  runWith: string;
  typed: boolean;
}): string {
  const { toolName, expected, runWith, typed } = options;
  const helperType = typed
    ? ` as {
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: { allowError?: boolean },
  ): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown> }>;
}`
    : '';
  return `// Run with: ${runWith}
// mcp test starts an MCP server with this tool (TOOLPACK_TEST_SERVER) and points
// TOOLPACK_TEST_HELPER at a module whose callTool(name, args) calls it as a client would.
import assert from 'node:assert/strict';
import { test } from 'node:test';

const helper = process.env.TOOLPACK_TEST_HELPER;
const skip = helper === undefined ? 'run with mcp test, which starts the server' : false;
const load = async () => (await import(helper${typed ? '!' : ''}))${helperType};

test('${toolName} answers with the text and its length', { skip }, async () => {
  const { callTool } = await load();
  const result = await callTool('${toolName}', { text: '${SAMPLE.text}' });
  assert.deepEqual(result.structuredContent, ${toJsLiteral(expected)});
});

test('${toolName} refuses a call without text', { skip }, async () => {
  const { callTool } = await load();
  const result = await callTool('${toolName}', {}, { allowError: true });
  assert.equal(result.isError, true);
});
`;
}

/** A node:test file for a defineTool module: it imports the module and calls run(). */
export function renderModuleNodeTest(options: {
  names: ToolNames;
  moduleFile: string;
  typed: boolean;
}): string {
  const { names, moduleFile, typed } = options;
  return `// Run with: node --test (or mcp test, which also runs every tool without a test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
${typed ? "import type { ToolRunContext } from '@toolpack/core';\n" : ''}import { ${names.camel} } from './${moduleFile}';

const context${typed ? ': ToolRunContext' : ''} = {
  signal: new AbortController().signal,
  projectRoot: process.cwd(),
  progress: () => undefined,
  log: () => undefined,
};

test('${names.snake} answers with the text and its length', async () => {
  assert.deepEqual(await ${names.camel}.run({ text: '${SAMPLE.text}' }, context), {
    text: '${SAMPLE.text}',
    characters: ${SAMPLE.characters},
  });
});

test('${names.snake} refuses an empty text', async () => {
  await assert.rejects(${names.camel}.run({ text: '' }, context), /Invalid arguments/);
});
`;
}
