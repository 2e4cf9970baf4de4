import type { ToolpackServer } from './toolpack-server.ts';
import type { HttpServerHandle, StartHttpServerOptions } from './transports/http.ts';

/**
 * The HTTP transport (`transports/http.ts`), loaded when it is first started: importing
 * node:http as an ES module reads every export of it, which loads Node's bundled undici
 * (about 10 ms), and a stdio start, the common one, never needs either.
 */
export async function startHttpServer(
  toolpack: ToolpackServer,
  options: StartHttpServerOptions = {},
): Promise<HttpServerHandle> {
  const transport = await import('./transports/http.ts');
  return transport.startHttpServer(toolpack, options);
}
