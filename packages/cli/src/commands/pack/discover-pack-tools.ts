import { isToolpackError, type Diagnostic, type DiscoveredTool } from '@toolpack/core';
import type { PackManifest, PackToolSummary } from '@toolpack/packs';

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
    // The pack's credentials: bind its tools as they will be bound when it is served.
    sources: manifest.sources.map(({ prefix: _prefix, ...source }) =>
      manifest.credentials?.length ? { ...source, credentials: manifest.credentials } : source,
    ),
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

function toToolSummary(tool: DiscoveredTool): PackToolSummary {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.annotations === undefined || Object.keys(tool.annotations).length === 0
      ? {}
      : { annotations: tool.annotations }),
  };
}
