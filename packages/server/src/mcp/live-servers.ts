import type { Server } from '@modelcontextprotocol/server';
import { createMcpServerInstance, type McpToolHost } from './create-mcp-server.ts';

/** The SDK servers of open connections, and who hears that the tool list changed. */
export interface LiveServers {
  /** A new SDK server; with `track` (the default) it hears list changes until it closes. */
  create(options?: { track?: boolean }): Server;
  onToolsChanged(listener: () => void): () => void;
  notifyToolsChanged(): void;
  closeAll(): Promise<void>;
}

export function createLiveServers(host: McpToolHost, log: (line: string) => void): LiveServers {
  const listeners = new Set<() => void>();
  const servers = new Set<Server>();
  return {
    create(options = {}) {
      const server = createMcpServerInstance(host);
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
      await Promise.allSettled([...servers].map((server) => server.close()));
      servers.clear();
    },
  };
}
