import type { BoundCredential, CredentialParameter } from './credential-binding.ts';
import type { PackPermissions } from './pack-permissions.ts';

/** A JSON Schema (2020-12) document. Kept structural: any keyword may appear. */
export type JsonSchema = { [keyword: string]: unknown };

/** An MCP tool's `inputSchema`: always an object schema. */
export interface ObjectJsonSchema extends JsonSchema {
  type: 'object';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
}

/** MCP's behaviour hints. Clients treat them as advice, never as a security boundary. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export const TOOL_SOURCE_KINDS = [
  'tool-folder',
  'script',
  'ps-module',
  'js-module',
  'basic',
  'workflow',
  'builtin',
] as const;

export type ToolSourceKind = (typeof TOOL_SOURCE_KINDS)[number];

/** Where a tool came from: what `mcp list` shows and what diagnostics point at. */
export interface ToolSource {
  kind: ToolSourceKind;
  /** The file that defines the tool (absolute, or relative to the project root in output). */
  path: string;
  /** 1-based line of the definition, when the source has one. */
  line?: number;
  /** The alias of the installed pack that provided the tool. */
  pack?: string;
  /** Set when the tool runs confined (every pack tool; a project source with `sandbox: true`). */
  sandbox?: ToolSandbox;
  /**
   * A pack's own interpreters (its source's `interpreters`): a process tool of a pack runs
   * with these over the defaults, never with the project's interpreters or another pack's.
   */
  interpreters?: Readonly<Record<string, readonly string[]>>;
}

/** How a confined tool runs: what it may touch, and its own folder (always readable). */
export interface ToolSandbox {
  /** The pack's folder or the source's, relative to the project root (or absolute). */
  root: string;
  permissions: PackPermissions;
  /**
   * What the project runs unconfined, relative to the project root: its own sources' folders
   * and files. Never writable from the sandbox, even inside a granted `project` folder, since
   * the server would run what was written there with the user's full rights.
   */
  protect?: readonly string[];
}

/**
 * One worked example of calling a tool: what `.EXAMPLE` help, an `EXAMPLE` declaration line or
 * `examples:` in metadata say. Served in `describe_tool` and the tool's `_meta`, and used as
 * search text; the arguments fit the tool's input schema.
 */
export interface ToolInputExample {
  arguments: Record<string, unknown>;
  /** What the example shows, in the author's words. */
  description?: string;
}

/**
 * One of a PowerShell command's parameter sets. A tool with several is served with a `oneOf`
 * input schema (one branch per set, the default first); a call binds the one set its
 * arguments fit.
 */
export interface ToolParameterSet {
  name: string;
  /** The command's `DefaultParameterSetName`, described first. */
  isDefault: boolean;
  /** Every parameter the set accepts, shared ones included, as the input schema names them. */
  parameters: string[];
  /**
   * The set's mandatory parameters. As the engine binds, one may be missing from `parameters`
   * (named in other sets, mandatory by an attribute naming none): the set is then never bound.
   */
  required: string[];
}

/** What a client sees of a tool, plus where it came from. Plain data: serialisable as JSON. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: ObjectJsonSchema;
  /** What `structuredContent` holds; a result that does not fit it is answered as an error. */
  outputSchema?: ObjectJsonSchema;
  annotations?: ToolAnnotations;
  source: ToolSource;
  /** Per-tool call timeout; the runner's default (30 000 ms) applies when absent. */
  timeoutMs?: number;
  /** Worked examples, in source order. */
  inputExamples?: ToolInputExample[];
  /** Present only when the command has more than one parameter set. */
  parameterSets?: ToolParameterSet[];
  /** The tool opted in: each progress report restarts its timeout. */
  progressResetsTimeout?: boolean;
  /** The tool says its calls take long: clients that support tasks may run it as one. */
  longRunning?: boolean;
}

export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string };

/** MCP's `CallToolResult`, as every runner returns it. */
export interface ToolCallResult {
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export type ToolLogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

/**
 * One field of a question a tool asks its user: a line of text, or one of `choices`.
 * Never a secret: MCP's form elicitation must not carry passwords or keys, so runners refuse
 * secret prompts themselves (credentials come from the server's `credentials:` binding).
 */
export interface ToolQuestionField {
  name: string;
  title?: string;
  description?: string;
  /** The values the user picks from, in order; absent for free text. */
  choices?: readonly { value: string; title?: string; description?: string }[];
  default?: string;
}

/**
 * A question a running tool asks its user (ShouldProcess, Read-Host, PromptForChoice, an
 * `::ask` line, `context.ask`), which the server turns into an MCP form elicitation. No
 * fields: a yes/no confirmation, accepted or not.
 */
export interface ToolQuestion {
  message: string;
  fields: readonly ToolQuestionField[];
  /**
   * What the question is called where the protocol names it (a 2026-07-28 `input_required`
   * result's `inputRequests` key): letters, digits, `_`, `-`, `.`, at most 64. A JS module
   * may name its questions; others are called `question`.
   */
  key?: string;
}

/** The form a question's `key` takes. */
export const TOOL_QUESTION_KEY_PATTERN = /^[\w.-]{1,64}$/u;

export type ToolQuestionAnswer =
  | { action: 'accept'; values: Record<string, string> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** What a running tool may use besides its arguments. */
export interface ToolRunContext {
  /** Aborted on timeout, cancellation or shutdown. */
  signal: AbortSignal;
  /** The project the server serves; scripts see it as `TOOLPACK_PROJECT_ROOT`. */
  projectRoot: string;
  /** Reports progress; reaches the client as `notifications/progress` when it asked for it. */
  progress(progress: number, total?: number, message?: string): void;
  /** Reaches the client as `notifications/message`. */
  log(level: ToolLogLevel, message: string): void;
  /**
   * Asks the user through the MCP client (an elicitation) and waits for the answer; no
   * `fields` is a yes/no confirmation. Rejects at once when nobody can answer (a client
   * without elicitation, a task), with `E_ELICITATION_UNAVAILABLE` in its message. Never ask
   * for a secret this way. The call's timeout does not run while the user thinks. Always
   * there when Toolpack runs the tool; optional so that a context made by hand (a test)
   * needs none.
   */
  ask?(question: {
    message: string;
    fields?: readonly ToolQuestionField[];
    key?: string;
  }): Promise<ToolQuestionAnswer>;
}

/** A definition that can be executed. */
export interface Tool extends ToolDefinition {
  run(args: Record<string, unknown>, context: ToolRunContext): Promise<ToolCallResult>;
}

/**
 * What a PowerShell runspace holds before a tool-folder script is dot-sourced: a source's
 * `preload:` list, or the session dotbot's own MCP server gives its tools. Imports happen once
 * per runspace (a runspace only ever serves one session); variables and environment are set
 * again before every call, as a reset runspace has lost them.
 */
export interface PwshSession {
  /** Why the session exists, for messages: `preload` (toolpack.yaml) or `dotbot`. */
  origin: 'preload' | 'dotbot';
  /**
   * Absolute paths, in order: a `.psd1`/`.psm1`/`.dll` is imported (`-Global`), a `.ps1` is
   * dot-sourced into the global scope.
   */
  imports: readonly string[];
  /** PowerShell run once per runspace after the imports (dotbot's log set-up). */
  setup?: string;
  /** Global variables; a text value takes the type the variable already has (`Stop` for `$ErrorActionPreference`). */
  variables?: Readonly<Record<string, string>>;
  /** Environment variables of the process while the call runs. */
  environment?: Readonly<Record<string, string>>;
  /**
   * `ConvertTo-Json`: results are written as dotbot's server writes them
   * (`ConvertTo-Json -Depth 100 -Compress`: its date format, enums as numbers) instead of by
   * Toolpack's own writer.
   */
  jsonWriter?: 'ConvertTo-Json';
}

/**
 * How a runner executes a discovered tool. Discovery decides it once, at load time, so a
 * runner never has to re-read the source to know what to call.
 */
export type ToolInvocation =
  /**
   * dotbot tool folder: dot-source `scriptPath`, call `functionName -Arguments <hashtable>`,
   * in a runspace that holds `session` first when the source names one.
   */
  | {
      runner: 'pwsh';
      mode: 'tool-folder';
      scriptPath: string;
      functionName: string;
      session?: PwshSession;
    }
  /**
   * A `.ps1` in a script root: run the script with named parameters. `credentials`: parameters
   * the host fills in from server-side secrets (toolpack.yaml `credentials:`), never the model.
   */
  | { runner: 'pwsh'; mode: 'script'; scriptPath: string; credentials?: BoundCredential[] }
  /** A function exported by a PowerShell module (`.psd1`/`.psm1` path or a module name). */
  | {
      runner: 'pwsh';
      mode: 'module';
      modulePath: string;
      functionName: string;
      credentials?: BoundCredential[];
    }
  /** A process per call, arguments as JSON on stdin (sh, py, js, mjs, ts, bas, configured interpreters). */
  | { runner: 'process'; scriptPath: string; extension: string }
  /** An exported `defineTool` value of a JS/TS module, run in that module's worker. */
  | { runner: 'node-worker'; modulePath: string; exportName: string }
  /** A declarative workflow: its steps call other tools. */
  | { runner: 'workflow'; workflow: WorkflowSpec }
  | { runner: 'builtin'; builtin: 'find_tools' | 'describe_tool' | 'call_tool' };

export interface WorkflowStep {
  id: string;
  tool: string;
  /** Values may be strings with `${input.x}` / `${steps.<id>.result...}` references, or any JSON. */
  with: Record<string, unknown>;
  line?: number;
}

export interface WorkflowSpec {
  name: string;
  description: string;
  enabled: boolean;
  path: string;
  steps: WorkflowStep[];
  /** What the workflow returns: a reference or a template; the last step's result when absent. */
  output?: unknown;
}

/** A tool as discovery hands it on: what clients see, plus how to run it. */
export interface DiscoveredTool extends ToolDefinition {
  invocation: ToolInvocation;
  /**
   * The name the source itself used (function, file or folder name, before prefixing and
   * normalisation); `include`/`exclude` patterns match it as well as the final name.
   */
  originalName: string;
  /**
   * Its `[pscredential]`/`[securestring]` parameters, as the PowerShell reader found them (none
   * is in the input schema). Discovery binds each to a `credentials:` entry (into
   * `invocation.credentials`) or refuses what needs it.
   */
  credentialParameters?: CredentialParameter[];
}
