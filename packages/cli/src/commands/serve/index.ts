import { existsSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import {
  DEFAULT_SCHEMA_DIALECT,
  formatDiagnostic,
  isToolpackError,
  type Diagnostic,
  type SchemaDialect,
  type SourceSpec,
  type ToolPolicy,
} from '@toolpack/core';
import { REFUSING_CODES } from '@toolpack/discovery';
import { MANIFEST_FILE, readPolicyFile, type LoadedPolicy } from '@toolpack/packs';
import {
  createToolpackServer,
  refuseNetworkedToolsWithoutToken,
  startHttpServer,
  startStdioServer,
  type ToolpackServer,
} from '@toolpack/server';
import { EXIT_OK, EXIT_USAGE } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import {
  addSourceFlags,
  resolveSources,
  type ResolvedSources,
  type SourceFlagValues,
} from '../../source-flags.ts';
import { displayPath } from '../../tool-view.ts';
import { findUnrunnableTools, renderUnrunnableTools } from '../../find-unrunnable-tools.ts';
import {
  FLAT_SCHEMAS_NOTE,
  collect,
  parseCount,
  parseSchemaDialect,
  parseTimeout,
} from '../../option-parsers.ts';
import { describeConfinement, renderConfinement } from '../../describe-confinement.ts';
import { resolveServedPacks } from './serve-packs.ts';

interface ServeFlags extends SourceFlagValues {
  http?: { host: string; port: number };
  token?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  maxSessions?: number;
  sessionIdleTimeout?: number;
  maxBufferedBody?: number;
  bodyTimeout?: number;
  watch?: boolean;
  timeout?: number;
  questionTimeout?: number;
  policy?: string;
  audit?: string;
  name?: string;
  idleGc?: boolean;
  requireSandbox?: boolean;
  pack?: string[];
  registry?: string;
  source?: string;
  discloseAbove?: number;
  schemaDialect?: SchemaDialect;
  flatSchemas?: boolean;
}

/** `3000`, `127.0.0.1:3000`, `0.0.0.0:0`, `[::1]:3000`, `localhost:3000`. */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (match === null || !Number.isInteger(port) || port > 65_535) {
    throw new InvalidArgumentError(
      'expected [HOST:]PORT, e.g. 3000, 127.0.0.1:3000 or [::1]:3000 (port 0 picks a free one).',
    );
  }
  return { host: match[1] ?? '127.0.0.1', port };
}

function describePolicy(policy: ToolPolicy): string {
  const parts: string[] = [];
  if (policy.allow?.length) parts.push(`allow ${policy.allow.join(', ')}`);
  if (policy.deny?.length) parts.push(`deny ${policy.deny.join(', ')}`);
  if (policy.readOnly) parts.push('read-only');
  if (policy.requireSandbox) parts.push('sandbox required');
  return parts.length === 0 ? 'no restrictions' : parts.join('; ');
}

/** Keeps stray console output of in-process code off stdout, the protocol channel. */
function guardStdout(io: CliIo): () => void {
  if (io.stdout !== process.stdout) return () => undefined;
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn };
  console.log =
    console.info =
    console.debug =
    console.warn =
      (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}

export function createServeCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('serve')
    .description(
      'Serve the tools to MCP clients: stdio by default, Streamable HTTP at /mcp with --http',
    )
    .option(
      '--http <[host:]port>',
      'serve Streamable HTTP instead of stdio (host defaults to 127.0.0.1; port 0 picks a free one)',
      parseListenAddress,
    )
    .option(
      '--token <token>',
      'require Authorization: Bearer <token> on /mcp and /metrics (default: $TOOLPACK_TOKEN)',
    )
    .option(
      '--allowed-host <name>',
      'accept this Host/Origin name besides loopback and the machine’s own; repeatable',
      collect,
    )
    .option(
      '--allowed-origin <origin>',
      'let browser pages from this origin (e.g. http://localhost:5173) call the server; repeatable',
      collect,
    )
    .option(
      '--max-sessions <n>',
      'open HTTP sessions at most; a new one closes the one idle longest (default 256)',
      parseCount,
    )
    .option(
      '--session-idle-timeout <ms>',
      'close an HTTP session without a request in flight after this long (default 1800000)',
      parseTimeout,
    )
    .option(
      '--max-buffered-body <bytes>',
      'bytes of HTTP request bodies read at once, all clients together; more get 503 (default 67108864)',
      parseCount,
    )
    .option(
      '--body-timeout <ms>',
      'an HTTP request body must arrive within this long, else 408 (default 30000)',
      parseTimeout,
    )
    .option(
      '--pack <name[@range]>',
      'serve this pack without a project: resolved, downloaded, verified and cached (e.g. json@^1); repeatable',
      collect,
    )
    .option(
      '--registry <url|dir>',
      'with --pack: a registry URL or a folder of packs (default: $TOOLPACK_REGISTRY, else http://127.0.0.1:4873)',
    )
    .option(
      '--source <feed>',
      'with --pack: a NuGet feed of PowerShell modules instead (a URL, a folder, or a feeds: name of toolpack.yaml)',
    )
    .option('--watch', 'reload tools when their files change (the default)')
    .option('--no-watch', 'do not watch the sources for changes')
    .option(
      '--timeout <ms>',
      'stop a call after this many milliseconds unless the tool sets its own (default 30000)',
      parseTimeout,
    )
    .option(
      '--question-timeout <ms>',
      "how long a tool's question to its user waits for the answer (a 2026-07-28 call waits suspended, then is stopped) (default 600000)",
      parseTimeout,
    )
    .option(
      '--policy <file>',
      `a YAML/JSON policy { allow, deny, readOnly, requireSandbox } (default: policy: in ${MANIFEST_FILE})`,
    )
    .option(
      '--require-sandbox',
      'refuse to run pack tools where the OS sandbox cannot be had, instead of running them unconfined',
    )
    .option('--audit <file>', 'append one JSON line per call (tool, argument names, outcome, ms)')
    .option('--name <name>', 'the server name clients show (default: toolpack)')
    .option(
      '--disclose-above <n>',
      'above n tools, list only find_tools, describe_tool and call_tool, which reach every tool (docs/serving-clients.md)',
      parseCount,
    )
    .option(
      '--schema-dialect <dialect>',
      `how tools/list writes input schemas: portable (default; what Claude, OpenAI and Gemini all accept), exact (full JSON Schema) or openai-strict (default: schemaDialect: in ${MANIFEST_FILE}, else portable)`,
      parseSchemaDialect,
    )
    .option('--flat-schemas', 'deprecated: --schema-dialect portable, the default')
    .option(
      '--no-idle-gc',
      'do not run a full garbage collection 5 s after a burst of calls (it gives the memory back)',
    );
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
Examples:
  mcp serve                                   # the sources of ./toolpack.yaml, over stdio
  mcp serve --script-root ./scripts --policy policy.yaml --audit .toolpack/audit.jsonl
  mcp serve --http 127.0.0.1:3000             # http://127.0.0.1:3000/mcp, /health, /metrics
  mcp serve --pack json@^1 --registry https://registry.example.com   # one pack, no project
  mcp serve --pack Az.Accounts --source https://www.powershellgallery.com/api/v2   # a module
  TOOLPACK_TOKEN=s3cret mcp serve --http 0.0.0.0:3000
  mcp config claude --write                   # register this project with Claude Desktop

Logs go to stderr; stdout carries only the protocol. The server stops on stdin's end
(stdio), SIGINT or SIGTERM.

At start, stderr names each tool this machine cannot run (pwsh missing, no interpreter
for .bas, a pack's required env unset) with the fix; those tools are still listed to
clients, and a call to one fails saying why.

Pack tools run in the OS sandbox (bubblewrap, Linux) confined to the permissions
toolpack.lock approved; where it cannot be had they run unconfined with a warning, or
not at all with --require-sandbox (docs/permissions.md).

With --pack, only the named packs are served (a toolpack.yaml here is not read), each
confined to the permissions its toolpack.yaml declares, which stderr lists at start; the
working directory is the project a pack granted \`project\` works on (-C picks another).
Packs are unpacked into the user cache ($TOOLPACK_CACHE_DIR, else ~/.cache/toolpack) and
reused from there, also when the registry is down (docs/serving-clients.md).

Input schemas are listed portable by default: no root oneOf (a PowerShell command's
parameter sets are spelled out in its description) and nothing the Anthropic, OpenAI or
Gemini function-calling rules refuse. --schema-dialect exact lists the full JSON Schema
(a root oneOf per parameter set), openai-strict what OpenAI's strict mode takes (every
parameter required, optional ones nullable; null means not given). Calls are validated
and bound to their parameter set against the full schema in every dialect.

Exit codes: 0 stopped cleanly, 2 bad flags, a bad policy, a missing source, more tools
than maxTools, or two tools of one name where a pack is involved (or any two under --strict).`,
  );
  command.action(async (flags: ServeFlags) => {
    const paint = createPainter(io.stderr, io.env);
    const say = (line: string) => io.stderr.write(`${paint('dim', 'toolpack:')} ${line}\n`);
    const fail = (message: string, hint?: string) => {
      io.stderr.write(`${paint('red', 'error')} ${message}\n`);
      if (hint !== undefined) io.stderr.write(`${paint('dim', `hint: ${hint}`)}\n`);
      done(EXIT_USAGE);
    };

    if (flags.flatSchemas === true) {
      if (flags.schemaDialect !== undefined && flags.schemaDialect !== 'portable') {
        fail(
          `--flat-schemas is --schema-dialect portable: it cannot go with --schema-dialect ${flags.schemaDialect}.`,
        );
        return;
      }
      say(FLAT_SCHEMAS_NOTE);
      flags.schemaDialect = 'portable';
    }

    let resolved: ResolvedSources;
    if (flags.pack !== undefined) {
      if (sources.length > 0) {
        fail(
          '--pack serves only the named packs: it cannot be mixed with --script-root, --tools-dir, --module or --workflows.',
          'To serve packs beside your own tools, make a project: mcp pack add <name>, then mcp serve.',
        );
        return;
      }
      if (flags.source !== undefined && flags.registry !== undefined) {
        fail('--source and --registry both say where --pack comes from: give one.');
        return;
      }
      if (existsSync(path.join(io.cwd, MANIFEST_FILE)))
        say(
          `--pack serves only the named packs: the ${MANIFEST_FILE} here is not read${flags.source === undefined ? '' : ' (but for its feeds:, which --source may name)'}.`,
        );
      const served = await resolveServedPacks({
        specs: flags.pack,
        ...(flags.registry === undefined ? {} : { registry: flags.registry }),
        ...(flags.source === undefined ? {} : { source: flags.source }),
        flags,
        context: io,
      });
      for (const line of served.lines) say(line);
      resolved = served.resolved;
    } else {
      if (flags.registry !== undefined || flags.source !== undefined) {
        fail(
          `${flags.registry === undefined ? '--source' : '--registry'} is for --pack: a project names its packs, registry and feeds in toolpack.yaml.`,
        );
        return;
      }
      resolved = await resolveSources({ sources, flags, cwd: io.cwd });
    }
    if (resolved.origin === 'none') {
      say(
        `no source flags and no ${MANIFEST_FILE} here: serving only the built-in tools (find_tools, describe_tool).`,
      );
    }

    for (const d of resolved.diagnostics.filter((x) => x.severity !== 'info')) {
      say(formatDiagnostic(d));
    }

    // --policy replaces the project's policy: (already read, with its line, by loadProject).
    let loaded: LoadedPolicy = {
      ...(resolved.policy === undefined ? {} : { policy: resolved.policy }),
      diagnostics: [],
    };
    if (flags.policy !== undefined) {
      const file = path.resolve(io.cwd, flags.policy);
      loaded = await readPolicyFile({ file, shownAs: displayPath(file, io.cwd) });
    }
    const policyErrors: Diagnostic[] = loaded.diagnostics.filter((d) => d.severity === 'error');
    if (policyErrors.length > 0) {
      for (const d of policyErrors) io.stderr.write(`${paint('red', formatDiagnostic(d))}\n`);
      fail(
        'Refusing to start with an invalid policy: it would serve tools the policy means to hide.',
      );
      return;
    }

    const token =
      flags.token ??
      (io.env.TOOLPACK_TOKEN === undefined || io.env.TOOLPACK_TOKEN === ''
        ? undefined
        : io.env.TOOLPACK_TOKEN);
    const requireSandbox = flags.requireSandbox === true || loaded.policy?.requireSandbox === true;
    // Without a token the server answers anyone on loopback, and a tool granted the network
    // shares the machine's loopback: it could call every tool served, the unconfined ones too.
    const tokenless = flags.http !== undefined && token === undefined;
    const auditFile = flags.audit === undefined ? undefined : path.resolve(io.cwd, flags.audit);
    const policyFile = flags.policy === undefined ? undefined : path.resolve(io.cwd, flags.policy);
    // The server appends to the audit log and reads the policy file unconfined: no pack may
    // write them (or swap them for links), even one granted the folder they are in.
    const protect = [
      ...(resolved.options.protect ?? []),
      ...[auditFile, policyFile].flatMap((file) =>
        file === undefined ? [] : [path.relative(io.cwd, file)],
      ),
    ];
    const restoreConsole = flags.http === undefined ? guardStdout(io) : () => undefined;
    let toolpack: ToolpackServer;
    try {
      toolpack = await createToolpackServer({
        discovery: {
          ...resolved.options,
          requireSandbox,
          ...(protect.length === 0 ? {} : { protect }),
        },
        runner: {
          envAllowList: resolved.envAllowList,
          ...(resolved.interpreters === undefined ? {} : { interpreters: resolved.interpreters }),
          ...(flags.timeout === undefined ? {} : { defaultTimeoutMs: flags.timeout }),
          ...(resolved.progressTimeoutCapMs === undefined
            ? {}
            : { progressTimeoutCapMs: resolved.progressTimeoutCapMs }),
          requireSandbox,
        },
        ...(loaded.policy === undefined ? {} : { policy: loaded.policy }),
        ...(auditFile === undefined ? {} : { audit: auditFile }),
        ...(flags.name === undefined ? {} : { name: flags.name }),
        ...(flags.discloseAbove === undefined ? {} : { discloseAbove: flags.discloseAbove }),
        ...(flags.questionTimeout === undefined
          ? {}
          : { questionTimeoutMs: flags.questionTimeout }),
        schemaDialect: flags.schemaDialect ?? resolved.schemaDialect ?? DEFAULT_SCHEMA_DIALECT,
        // A served pack is an immutable copy in the cache: nothing to watch.
        watch: flags.watch !== false && resolved.origin !== 'packs',
        warm: 'after-list',
        // Only HTTP has a /metrics endpoint; over stdio nothing could read them.
        metrics: flags.http !== undefined,
        collectWhenIdle: flags.idleGc !== false,
        ...(tokenless ? { admitTool: refuseNetworkedToolsWithoutToken } : {}),
        log: (line) => say(line),
      });
    } catch (error) {
      restoreConsole();
      if (isToolpackError(error) && REFUSING_CODES.has(error.code)) {
        fail(error.message, error.hint);
        return;
      }
      throw error;
    }

    // At start it is refused as a whole; a reload that brings such a tool in withholds it.
    const networked = toolpack.diagnostics.find((d) => d.code === 'E_HTTP_TOKEN');
    if (networked !== undefined) {
      await toolpack.close();
      restoreConsole();
      fail(
        'Refusing to serve HTTP without a token: a tool served here may use the network (above), and on loopback it could reach this server.',
        networked.hint,
      );
      return;
    }

    // Changes made right after start must not be missed: let the watcher finish its first
    // scan (bounded, so a huge tree cannot hold the server back).
    await Promise.race([
      toolpack.watching,
      new Promise((resolve) => setTimeout(resolve, 3_000).unref()),
    ]);

    const stopHooks: (() => void)[] = [];
    const stopped = new Promise<string>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => resolve(signal);
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      stopHooks.push(() => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      });
    });

    // Said once at start: a client would otherwise learn it only from a failed call.
    const unrunnable = findUnrunnableTools({
      tools: toolpack.tools,
      env: io.env,
      cwd: io.cwd,
      packs: resolved.packs,
      ...(resolved.interpreters === undefined ? {} : { interpreters: resolved.interpreters }),
    }).map((entry) => ({ ...entry, path: displayPath(entry.path, io.cwd) }));
    for (const line of renderUnrunnableTools(unrunnable, {
      total: toolpack.tools.length,
      servedFrom: flags.pack === undefined ? 'project' : 'packs',
    }))
      say(line);
    const confinement = renderConfinement(
      describeConfinement({ tools: toolpack.tools, requireSandbox, env: io.env }),
    );
    if (confinement !== undefined) say(confinement);

    const policy = loaded.policy;
    const summary = `${toolpack.tools.length} ${toolpack.tools.length === 1 ? 'tool' : 'tools'}${
      resolved.origin === 'project'
        ? ` from ${MANIFEST_FILE}`
        : resolved.origin === 'packs'
          ? ` from ${resolved.packs.map((pack) => `${pack.name}@${pack.version}`).join(', ')}`
          : ''
    }${policy === undefined ? '' : ` (policy ${policy.origin}: ${describePolicy(policy)})`}`;

    let closeTransport: () => Promise<void>;
    let reason: string;
    try {
      if (flags.http !== undefined) {
        let handle;
        try {
          handle = await startHttpServer(toolpack, {
            host: flags.http.host,
            port: flags.http.port,
            ...(token === undefined ? {} : { token }),
            ...(flags.allowedHost === undefined ? {} : { allowedHosts: flags.allowedHost }),
            ...(flags.allowedOrigin === undefined ? {} : { allowedOrigins: flags.allowedOrigin }),
            ...(flags.maxSessions === undefined ? {} : { maxSessions: flags.maxSessions }),
            ...(flags.sessionIdleTimeout === undefined
              ? {}
              : { sessionIdleTimeoutMs: flags.sessionIdleTimeout }),
            ...(flags.maxBufferedBody === undefined
              ? {}
              : { maxBufferedBodyBytes: flags.maxBufferedBody }),
            ...(flags.bodyTimeout === undefined ? {} : { bodyTimeoutMs: flags.bodyTimeout }),
            onError: (error) => say(`http: ${error.message}`),
          });
        } catch (error) {
          await toolpack.close();
          if (isToolpackError(error)) {
            fail(error.message, error.hint);
            return;
          }
          if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
            fail(
              `Cannot listen on ${flags.http.host}:${flags.http.port}: the port is in use.`,
              'Pick another port, or 0 for a free one.',
            );
            return;
          }
          throw error;
        }
        closeTransport = () => handle.close();
        say(`serving ${summary} on ${handle.url} (also /health and /metrics)`);
        if (token === undefined)
          say(
            'no token set: only clients on this machine can connect, and no tool granted the network is served.',
          );
        reason = await stopped;
      } else {
        const handle = startStdioServer(toolpack, {
          onError: (error) => say(`stdio: ${error.message}`),
        });
        closeTransport = () => handle.close();
        say(`serving ${summary} over stdio`);
        reason = await Promise.race([stopped, handle.closed.then(() => 'end of stdin')]);
      }
      say(`stopping (${reason})`);
      await closeTransport();
      await toolpack.close();
    } finally {
      for (const hook of stopHooks) hook();
      restoreConsole();
    }
    if (io.stdout === process.stdout) {
      // Everything is closed; should a dependency still hold the event loop open, do not
      // leave the client waiting on a process that has nothing left to do.
      setTimeout(() => process.exit(process.exitCode ?? EXIT_OK), 2_000).unref();
      if (flags.http === undefined) process.stdin.pause();
    }
    done(EXIT_OK);
  });
  return command;
}
