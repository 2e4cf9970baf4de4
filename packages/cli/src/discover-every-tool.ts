import type { Diagnostic, DiscoveredTool, SourceSpec } from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import { resolveSources, type ResolvedSources, type SourceFlagValues } from './source-flags.ts';

export interface DiscoverEveryToolOptions {
  cwd: string;
  /** Source flags in command-line order; empty reads `toolpack.yaml`. */
  sources: SourceSpec[];
  flags: SourceFlagValues;
  /** Called as soon as it is known that there is neither a source flag nor a `toolpack.yaml`. */
  onNoSources?: () => void;
  /** `--require-sandbox`: no pack module is imported unconfined (the project's policy may say so too). */
  requireSandbox?: boolean;
}

export interface EveryTool {
  resolved: ResolvedSources;
  tools: DiscoveredTool[];
  diagnostics: Diagnostic[];
}

/**
 * Every tool of the sources, for a command that wants one tool by name (`mcp call`, `mcp
 * inspect`): more tools than `maxTools` is a reason to refuse serving a catalogue, not to
 * refuse finding one tool in it.
 */
export async function discoverEveryTool(options: DiscoverEveryToolOptions): Promise<EveryTool> {
  const { cwd } = options;
  const resolved = await resolveSources({ sources: options.sources, flags: options.flags, cwd });
  if (resolved.origin === 'none') options.onNoSources?.();
  const { tools, diagnostics } = await discoverTools({
    ...resolved.options,
    maxTools: Number.MAX_SAFE_INTEGER,
    requireSandbox: options.requireSandbox === true || resolved.policy?.requireSandbox === true,
  });
  return { resolved, tools, diagnostics };
}
