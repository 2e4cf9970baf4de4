import path from 'node:path';
import type {
  Diagnostic,
  DiscoveredTool,
  PackPermissions,
  SourceSpec,
  ToolCallResult,
} from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import {
  createPackTarball,
  readManifest,
  writePackFiles,
  type PackManifest,
} from '@toolpack/packs';
import { createToolRunner, type ToolRunner } from '@toolpack/runners';
import { listPackTools, type PackToolListing } from '../publish/list-pack-tools.ts';
import { readPackUpload } from '../publish/read-pack-upload.ts';

/**
 * Helpers for the official packs' own tests (registry/packs/<name>/tests): the checks a
 * publish makes, and real tool calls through the same runners a server uses.
 */

/**
 * What the pack tests need to know about PowerShell, from the one probe every test uses:
 * whether a pwsh 7.2+ runs here, the tag PowerShell test titles carry, and which module
 * cmdlets it lacks (the bare engine has none).
 */
export { PWSH_TEST_TAG, hasPwsh, missingCommands } from '@toolpack/pwsh-probe';

/**
 * Whether the OS sandbox can be had here and why not: the tests that prove a pack works
 * confined (`openPackSession({ confine })`) skip with the reason where it cannot.
 */
export { describeSandbox } from '@toolpack/containment';

export interface CheckedPack {
  manifest: PackManifest;
  listing: PackToolListing;
  /** Files the tarball holds, relative to the pack folder. */
  files: string[];
  /** Problems of packing and of reading the packed manifest (warnings included). */
  packDiagnostics: Diagnostic[];
}

/**
 * Packs `dir` as `mcp pack publish` would, reads the tarball back as the registry does, and
 * lists its tools from the unpacked copy: what a publish of this folder would see.
 */
export async function checkPackFolder(dir: string, unpackDir: string): Promise<CheckedPack> {
  const packed = await createPackTarball({ dir });
  if (packed.tarball === undefined || packed.manifest === undefined) {
    throw new Error(
      `${dir} does not pack:\n${packed.diagnostics.map((d) => `  ${d.code} ${d.message}`).join('\n')}`,
    );
  }
  const read = readPackUpload(packed.tarball, {});
  if (!read.ok)
    throw new Error(
      `The tarball of ${dir} is refused:\n${read.problems.map((d) => `  ${d.message}`).join('\n')}`,
    );
  await writePackFiles(read.upload.files, unpackDir);
  const listing = await listPackTools({ dir: unpackDir, manifest: read.upload.manifest });
  return {
    manifest: read.upload.manifest,
    listing,
    files: packed.files,
    packDiagnostics: [...packed.diagnostics, ...read.warnings],
  };
}

export interface PackSession {
  tools: DiscoveredTool[];
  diagnostics: Diagnostic[];
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: { timeoutMs?: number },
  ): Promise<ToolCallResult>;
  close(): Promise<void>;
}

export interface OpenPackSessionOptions {
  /** The pack folder. */
  dir: string;
  /** The project the tools work on (their working directory and TOOLPACK_PROJECT_ROOT). */
  projectRoot: string;
  /** Values for the pack's declared environment variables. */
  env?: Record<string, string>;
  /**
   * Run the tools confined, as an installed pack's tools run (its sources get `sandbox: true`):
   * to `permissions` when given (a test that withholds a grant proves the sandbox holds), else
   * to what the pack declares. Where the OS sandbox cannot be had the calls are refused
   * (`requireSandbox`), never run unconfined.
   */
  confine?: { permissions?: PackPermissions };
}

/** Discovers a pack's tools and runs them as an MCP server would. */
export async function openPackSession(options: OpenPackSessionOptions): Promise<PackSession> {
  const read = await readManifest(options.dir, { kind: 'pack' });
  if (read.manifest === undefined)
    throw new Error(`${options.dir}: ${read.diagnostics.map((d) => d.message).join('; ')}`);
  const { manifest } = read;
  const dir = path.resolve(options.dir);
  const { confine } = options;
  const sources: SourceSpec[] =
    confine === undefined
      ? manifest.sources
      : manifest.sources.map((source) => ({
          ...source,
          sandbox: true,
          permissions: confine.permissions ?? manifest.permissions,
          // The whole pack folder, as for an installed pack: scripts load files beside them.
          sandboxRoot: dir,
        }));
  const { tools, diagnostics } = await discoverTools({
    sources,
    cwd: dir,
    cache: false,
    builtins: false,
  });
  const runner: ToolRunner = createToolRunner({
    projectRoot: options.projectRoot,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(confine === undefined ? {} : { requireSandbox: true }),
  });
  return {
    tools,
    diagnostics,
    async call(name, args = {}, callOptions = {}) {
      const tool = tools.find((t) => t.name === name);
      if (tool === undefined)
        throw new Error(
          `The pack has no tool ${name} (it has ${tools.map((t) => t.name).join(', ')}).`,
        );
      return runner.call(
        tool,
        args,
        callOptions.timeoutMs === undefined ? {} : { timeoutMs: callOptions.timeoutMs },
      );
    },
    close: () => runner.close(),
  };
}

/** The structured result of a successful call, or an error with the tool's message. */
export function readStructured<T = Record<string, unknown>>(result: ToolCallResult): T {
  if (result.isError === true) throw new Error(`The tool failed: ${readText(result)}`);
  if (result.structuredContent === undefined)
    throw new Error(`The tool returned no structured content: ${readText(result)}`);
  return result.structuredContent as T;
}

export function readText(result: ToolCallResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
