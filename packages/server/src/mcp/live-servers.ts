import type { Server, ServerContext } from '@modelcontextprotocol/server';
import { QUESTION_TIMEOUT_MS } from './ask-client.ts';
import { createMcpServerInstance, type McpToolHost } from './create-mcp-server.ts';
import { createSuspendedCalls } from './suspended-calls.ts';

/** The SDK servers of open connections, and who hears that the tool list changed. */
export interface LiveServers {
  /** A new SDK server; with `track` (the default) it hears list changes until it closes. */
  create(options?: { track?: boolean }): Server;
  onToolsChanged(listener: () => void): () => void;
  notifyToolsChanged(): void;
  closeAll(): Promise<void>;
}

export function createLiveServers(
  host: McpToolHost,
  log: (line: string) => void,
  settings: {
    /** How long a tool's question waits for its answer (both eras). */
    questionTimeoutMs?: number;
  } = {},
): LiveServers {
  const listeners = new Set<() => void>();
  const servers = new Set<Server>();
  // One for the process: over HTTP each 2026-07-28 request has an SDK server of its own.
  const suspended = createSuspendedCalls<ServerContext>({
    waitMs: settings.questionTimeoutMs ?? QUESTION_TIMEOUT_MS,
  });
  return {
    create(options = {}) {
      const server = createMcpServerInstance(host, suspended);
      if (options.track !== false) {
        const listener = () => {
          server.sendToolListChanged().catch(() => undefined);
        };
        listeners.add(listener);
        servers.add(server);
        server.onclose = () => {
          listeners.delete(listener);
          servers.delete(server);
        };
      }
      return server;
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notifyToolsChanged() {
      for (const listener of [...listeners]) {
        try {
          listener();
        } catch (error) {
          log(`a tools-changed listener failed: ${(error as Error).message}`);
        }
      }
    },
    async closeAll() {
      listeners.clear();
      suspended.close();
      await Promise.allSettled([...servers].map((server) => server.close()));
      servers.clear();
    },
  };
}
