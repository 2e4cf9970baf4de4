import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic } from '@toolpack/core';
import type { Diagnostic, PwshSession } from '@toolpack/core';

export interface ResolveToolFolderSessionOptions {
  /** The tool-folder roots of one source (absolute). */
  roots: readonly string[];
  /** The project root. */
  cwd: string;
  /** The source's `preload:` entries, relative to the project root. */
  preload?: readonly string[];
}

export interface ToolFolderSession {
  /** Undefined when the source's tools need nothing beyond a clean runspace. */
  session?: PwshSession;
  /** True when a preload file is missing: the source's PowerShell tools cannot run. */
  broken: boolean;
  diagnostics: Diagnostic[];
}

/**
 * The modules dotbot's MCP server (src/mcp/dotbot-mcp.ps1) imports before it dot-sources a
 * tool, in its order, relative to the framework root. The helpers script is dot-sourced.
 */
const DOTBOT_IMPORTS = [
  'src/runtime/Modules/Dotbot.Core/Dotbot.Core.psm1',
  'src/runtime/Modules/Dotbot.Logging/Dotbot.Logging.psd1',
  'src/mcp/dotbot-mcp-helpers.ps1',
  'src/runtime/Modules/Dotbot.Workflow/Dotbot.Workflow.psd1',
  'src/runtime/Modules/Dotbot.Content/Dotbot.Content.psm1',
  'src/runtime/Modules/Dotbot.Runtime/Dotbot.Runtime.psd1',
] as const;

/** What marks a folder as dotbot's framework: its core module and its MCP server. */
const DOTBOT_MARKERS = [
  'src/runtime/Modules/Dotbot.Core/Dotbot.Core.psm1',
  'src/mcp/dotbot-mcp.ps1',
];

/** Where a dotbot project keeps a copy of the framework (`dotbot init --copy-runtime`, v4's vendor folder). */
const PROJECT_FRAMEWORKS = ['.bot/runtime', '.bot/vendor/dotbot'];

/**
 * What a tool-folder source's runspace holds before a tool is dot-sourced: the source's own
 * `preload:` list, and, for a dotbot project (a `.bot/` folder beside a dotbot framework that
 * holds the tools, or is copied into `.bot/`), the session dotbot's own server sets up — so
 * its real tools, which call `Get-DotbotProjectBotPath`, `Invoke-McpRuntimeRequest` or
 * `Write-BotLog` without importing them, run unchanged.
 */
export async function resolveToolFolderSession(
  options: ResolveToolFolderSessionOptions,
): Promise<ToolFolderSession> {
  const { cwd } = options;
  const diagnostics: Diagnostic[] = [];
  const preload: string[] = [];
  let broken = false;
  for (const entry of options.preload ?? []) {
    const file = path.resolve(cwd, entry);
    if (await isFile(file)) {
      preload.push(file);
      continue;
    }
    broken = true;
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_PRELOAD_MISSING',
        `preload: names ${entry}, which does not exist (looked for ${file}), so the PowerShell tools of ${describeRoots(options)} are not served.`,
        { path: file },
        'Fix the path in toolpack.yaml (relative to the project root) or remove the entry.',
      ),
    );
  }

  const framework = await findDotbotFramework(options);
  if (framework === undefined) {
    return preload.length === 0
      ? { broken, diagnostics }
      : { session: { origin: 'preload', imports: preload }, broken, diagnostics };
  }
  const imports: string[] = [];
  for (const relative of DOTBOT_IMPORTS) {
    const file = path.join(framework, relative);
    // dotbot's server itself only checks for Dotbot.Logging; a framework missing any other
    // fails the call with the import's own message rather than silently losing commands.
    if (relative.includes('Dotbot.Logging') && !(await isFile(file))) continue;
    imports.push(file);
  }
  const botRoot = path.join(cwd, '.bot');
  const control = path.join(botRoot, '.control');
  const session: PwshSession = {
    origin: 'dotbot',
    imports: [...imports, ...preload],
    setup: [
      // As dotbot-mcp.ps1 does at start: error text without ANSI colours, and its structured
      // log (console off) under .bot/.control/logs.
      `$PSStyle.OutputRendering = 'PlainText'`,
      `if (Get-Command Initialize-DotbotLog -ErrorAction SilentlyContinue) {`,
      `  [void][System.IO.Directory]::CreateDirectory(${quote(path.join(control, 'logs'))})`,
      `  Initialize-DotbotLog -LogDir ${quote(path.join(control, 'logs'))} -ControlDir ${quote(control)} -ProjectRoot ${quote(cwd)} -ConsoleEnabled $false`,
      `}`,
    ].join('\n'),
    variables: {
      DotbotProjectRoot: cwd,
      DotbotBotRoot: botRoot,
      // dotbot's server sets these in the scope its tools are called from.
      ErrorActionPreference: 'Stop',
      InformationPreference: 'SilentlyContinue',
      ProgressPreference: 'SilentlyContinue',
      VerbosePreference: 'SilentlyContinue',
      DebugPreference: 'SilentlyContinue',
      WarningPreference: 'SilentlyContinue',
    },
    // Get-McpActor stamps every mutation "mcp:<session>"; dotbot makes one id per server.
    environment: { DOTBOT_MCP_SESSION: getMcpSessionId() },
    // Its clients read dates and enums as ConvertTo-Json writes them.
    jsonWriter: 'ConvertTo-Json',
  };
  diagnostics.push(
    createDiagnostic(
      'info',
      'I_DOTBOT_SESSION',
      `The tool folders of ${describeRoots(options)} belong to the dotbot project ${cwd}: their PowerShell tools run in dotbot's session (Dotbot.Core, Dotbot.Logging, Dotbot.Workflow, Dotbot.Content and Dotbot.Runtime from ${path.relative(cwd, framework) || '.'}, $global:DotbotBotRoot, DOTBOT_MCP_SESSION).`,
      { path: options.roots[0] ?? cwd },
    ),
  );
  return { session, broken, diagnostics };
}

async function findDotbotFramework(
  options: ResolveToolFolderSessionOptions,
): Promise<string | undefined> {
  const { cwd } = options;
  if (!(await isDirectory(path.join(cwd, '.bot')))) return undefined;
  for (const root of options.roots) {
    for (let folder = root; ; folder = path.dirname(folder)) {
      if (await isDotbotFramework(folder)) return folder;
      if (path.dirname(folder) === folder) break;
    }
  }
  const candidates = PROJECT_FRAMEWORKS.map((relative) => path.join(cwd, relative));
  for (const candidate of candidates) if (await isDotbotFramework(candidate)) return candidate;
  return undefined;
}

async function isDotbotFramework(folder: string): Promise<boolean> {
  for (const marker of DOTBOT_MARKERS) if (!(await isFile(path.join(folder, marker)))) return false;
  return true;
}

let mcpSessionId: string | undefined;

/**
 * One id per process, as dotbot's server makes one per server process, in its format
 * (`{0:yyyyMMddHHmmss}-{8 hex}`, UTC): a reload keeps it, so the runspaces that hold the
 * session keep serving.
 */
function getMcpSessionId(): string {
  if (mcpSessionId === undefined) {
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    mcpSessionId = `${stamp}-${randomBytes(4).toString('hex')}`;
  }
  return mcpSessionId;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function describeRoots(options: ResolveToolFolderSessionOptions): string {
  return options.roots.map((root) => path.relative(options.cwd, root) || '.').join(', ');
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

async function isDirectory(folder: string): Promise<boolean> {
  return stat(folder).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
