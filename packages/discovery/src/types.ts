import type { Diagnostic, ToolDefinition } from '@toolpack/core';

/**
 * How a runner executes a discovered tool. Discovery decides it once, at load time, so a
 * runner never has to re-read the source to know what to call.
 */
export type ToolInvocation =
  /** dotbot tool folder: dot-source `scriptPath`, call `functionName -Arguments <hashtable>`. */
  | { runner: 'pwsh'; mode: 'tool-folder'; scriptPath: string; functionName: string }
  /** A `.ps1` in a script root: run the script with named parameters. */
  | { runner: 'pwsh'; mode: 'script'; scriptPath: string }
  /** A function exported by a PowerShell module (`.psd1`/`.psm1` path or a module name). */
  | { runner: 'pwsh'; mode: 'module'; modulePath: string; functionName: string }
  /** A process per call, arguments as JSON on stdin (sh, py, js, mjs, ts, bas, configured interpreters). */
  | { runner: 'process'; scriptPath: string; extension: string }
  /** An exported `defineTool` value of a JS/TS module, run in that module's worker. */
  | { runner: 'node-worker'; modulePath: string; exportName: string }
  /** A declarative workflow: its steps call other tools. */
  | { runner: 'workflow'; workflow: WorkflowSpec }
  | { runner: 'builtin'; builtin: 'find_tools' | 'describe_tool' };

/** A tool as discovery hands it on: what clients see, plus how to run it. */
export interface DiscoveredTool extends ToolDefinition {
  invocation: ToolInvocation;
  /**
   * The name the source itself used (function, file or folder name, before prefixing and
   * normalisation); `include`/`exclude` patterns match it as well as the final name.
   */
  originalName: string;
}

/** What one adapter returns for one source. */
export interface SourceResult {
  tools: DiscoveredTool[];
  diagnostics: Diagnostic[];
}

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

/**
 * Per-file memo of parse results, keyed by the files' path, size, mtime and content hash.
 * `parse` runs only when one of `files` changed since the stored result; its result must
 * be plain JSON. `kind` names the parser and its version (`ps-script@1`): bump the
 * version when a parser's output changes so old entries are never served.
 */
export interface ParseCache {
  read<T>(kind: string, files: readonly string[], parse: (contents: string[]) => T | Promise<T>): Promise<T>;
}
