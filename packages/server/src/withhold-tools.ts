import {
  createDiagnostic,
  type Diagnostic,
  type DiscoveredTool,
  type ToolpackErrorCode,
} from '@toolpack/core';
import type { DiscoveryResult } from '@toolpack/discovery';

/** Decides whether a discovered tool may be served: a diagnostic withholds it. */
export type AdmitTool = (tool: DiscoveredTool) => Diagnostic | undefined;

/**
 * Takes the tools `admitTool` refuses out of a discovery's result and adds its diagnostics
 * (each once: a pack-wide reason is said once for all its tools).
 */
export function withholdTools(result: DiscoveryResult, admitTool?: AdmitTool): DiscoveryResult {
  if (admitTool === undefined) return result;
  const tools: DiscoveredTool[] = [];
  const withheld = new Map<string, Diagnostic>();
  for (const tool of result.tools) {
    const refusal = admitTool(tool);
    if (refusal === undefined) tools.push(tool);
    else withheld.set(JSON.stringify(refusal), refusal);
  }
  if (withheld.size === 0) return result;
  return { ...result, tools, diagnostics: [...result.diagnostics, ...withheld.values()] };
}

// Typed, so a renamed code fails the typecheck.
const NO_TOKEN: ToolpackErrorCode = 'E_HTTP_TOKEN';

/**
 * For an HTTP server that asks no token (on loopback): withholds every confined tool granted
 * the network. Such a tool shares the machine's network namespace, loopback included (a
 * private namespace can cut the network, not filter it), so it could connect to this server
 * and call through it any tool it serves, the project's own unconfined ones too.
 */
export const refuseNetworkedToolsWithoutToken: AdmitTool = (tool) => {
  const sandbox = tool.source.sandbox;
  if (sandbox?.permissions.network.access !== 'any') return undefined;
  const who = tool.source.pack === undefined ? 'A source' : `Pack ${tool.source.pack}`;
  return createDiagnostic(
    'error',
    NO_TOKEN,
    `${who} is granted the network (network: any), which reaches this HTTP server on loopback, where it asks no token: its tools could call every tool served here, the project's own (unconfined) ones too. They are not served without a token.`,
    { path: sandbox.root },
    'Set TOOLPACK_TOKEN to a long random secret (or pass --token) and give your client the same value as "Authorization: Bearer <token>"; or serve over stdio (mcp serve without --http).',
  );
};
