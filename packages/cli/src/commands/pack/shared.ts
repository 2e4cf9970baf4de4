import { Option, type Command } from 'commander';
import {
  formatDiagnostic,
  isToolpackError,
  type Diagnostic,
  type DiscoveredTool,
} from '@toolpack/core';
import {
  createPackCache,
  formatBytes,
  openRegistry,
  readManifest,
  resolveRegistryLocation,
  type DownloadListener,
  type PackCache,
  type PackManifest,
  type PackToolSummary,
  type RegistryClient,
} from '@toolpack/packs';
import { createPainter, type CliIo, type CommandContext } from '../../io.ts';
import { displayPath } from '../../tool-view.ts';

export const REGISTRY_HELP =
  'a registry URL or a folder of packs (default: $TOOLPACK_REGISTRY, else registry: in toolpack.yaml, else http://127.0.0.1:4873)';

export function addRegistryOption(command: Command): Command {
  return command.addOption(new Option('--registry <url|dir>', REGISTRY_HELP));
}

/** The registry a command talks to, chosen as `resolveRegistryLocation` documents. */
export async function openCommandRegistry(
  io: CommandContext,
  flag: string | undefined,
): Promise<RegistryClient> {
  const manifest = await readManifest(io.cwd);
  const { location } = resolveRegistryLocation({
    flag,
    env: io.env,
    manifestRegistry: manifest.manifest?.registry,
    cwd: io.cwd,
    projectDir: io.cwd,
  });
  const origins = (io.env.TOOLPACK_TARBALL_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  return openRegistry({
    location,
    describeTools: describePackTools,
    ...(origins.length === 0 ? {} : { tarballOrigins: origins }),
  });
}

/**
 * A pack's tools as discovery serves them inside the pack (no alias yet): what a folder
 * registry reports and `mcp pack pack` lists. Discovery is loaded only when a command needs
 * it, so `mcp pack add` from an HTTP registry starts fast.
 */
export async function discoverPackTools(
  packDir: string,
  manifest: PackManifest,
): Promise<{ tools: DiscoveredTool[]; diagnostics: Diagnostic[] }> {
  const { discoverTools } = await import('@toolpack/discovery');
  const result = await discoverTools({
    sources: manifest.sources.map(({ prefix: _prefix, ...source }) => source),
    cwd: packDir,
    cache: false,
    builtins: false,
    maxTools: Number.MAX_SAFE_INTEGER,
    ...(manifest.interpreters ? { extraScriptExtensions: Object.keys(manifest.interpreters) } : {}),
  });
  return { tools: result.tools, diagnostics: result.diagnostics };
}

export async function describePackTools(
  packDir: string,
  manifest: PackManifest,
): Promise<PackToolSummary[]> {
  try {
    const { tools } = await discoverPackTools(packDir, manifest);
    return tools.map(toToolSummary);
  } catch (error) {
    // A pack whose source is missing lists no tools rather than failing the whole search.
    if (isToolpackError(error)) return [];
    throw error;
  }
}

export function toToolSummary(tool: DiscoveredTool): PackToolSummary {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.annotations === undefined || Object.keys(tool.annotations).length === 0
      ? {}
      : { annotations: tool.annotations }),
  };
}

export function createCommandCache(io: CommandContext): PackCache {
  return createPackCache({ env: io.env });
}

/**
 * Shows a download's progress on stderr once it has taken more than a second (fast
 * downloads print nothing): one self-updating line on a terminal, a line a second otherwise.
 */
export function createDownloadProgress(io: CliIo): { onDownload: DownloadListener; stop(): void } {
  const active = new Set<() => void>();
  const onDownload: DownloadListener = ({ name, version, size }) => {
    const started = Date.now();
    let received = 0;
    let total = size;
    let shown = false;
    let lastLine = 0;
    const render = (final: boolean) => {
      const now = Date.now();
      if (now - started < 1000 && !shown) return;
      if (!final && !io.stderr.isTTY && now - lastLine < 1000) return;
      lastLine = now;
      shown = true;
      const amount =
        total !== undefined && total > 0
          ? `${Math.min(100, Math.floor((received / total) * 100))}% (${formatBytes(received)} of ${formatBytes(total)})`
          : formatBytes(received);
      const text = `downloading ${name}@${version}  ${amount}`;
      io.stderr.write(io.stderr.isTTY ? `\r\u001b[K${text}${final ? '\n' : ''}` : `${text}\n`);
    };
    const timer = setInterval(() => render(false), 250);
    timer.unref();
    const finish = () => {
      clearInterval(timer);
      active.delete(finish);
      if (shown) render(true);
    };
    active.add(finish);
    return (bytes, declared) => {
      received = bytes;
      if (declared !== undefined) total = declared;
      if (total !== undefined && received >= total) finish();
    };
  };
  return {
    onDownload,
    stop: () => {
      for (const finish of [...active]) finish();
    },
  };
}

export function writeDiagnostics(io: CliIo, diagnostics: readonly Diagnostic[]): void {
  const paint = createPainter(io.stderr, io.env);
  for (const d of diagnostics) {
    const color = d.severity === 'error' ? 'red' : d.severity === 'warning' ? 'yellow' : 'dim';
    const { hint, ...rest } = d;
    io.stderr.write(
      `${paint(color, formatDiagnostic({ ...rest, path: displayPath(rest.path, io.cwd) }))}\n`,
    );
    if (hint !== undefined) io.stderr.write(`  ${paint('dim', `fix: ${hint}`)}\n`);
  }
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
