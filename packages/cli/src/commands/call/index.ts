import {
  ToolpackError,
  hasErrors,
  type Diagnostic,
  type DiscoveredTool,
  type JsonSchema,
  type SourceSpec,
  type ToolCallResult,
  type ToolLogLevel,
} from '@toolpack/core';
import { createToolRunner, type ToolProgress } from '@toolpack/runners';
import { createToolDispatcher } from '@toolpack/server';
import type { CommandContext } from '../../io.ts';
import { discoverEveryTool } from '../../discover-every-tool.ts';
import type { SourceFlagValues } from '../../source-flags.ts';
import { describeUnknownTool } from '../../suggest-tool-names.ts';

/** The arguments as the command line gives them: one JSON object, or `key=value` pairs. */
export interface CallArguments {
  /** `--args`: one JSON object. */
  args?: string;
  /** `--arg`: `key=value`, each value read by the parameter's type. */
  arg?: string[];
}

export interface CallToolOptions extends CommandContext, CallArguments {
  /** The tool's name, as `mcp list` shows it. */
  name: string;
  sources: SourceSpec[];
  flags: SourceFlagValues;
  timeoutMs?: number;
  /** Refuse a confined tool where the sandbox cannot be had (also `policy: requireSandbox`). */
  requireSandbox?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: ToolProgress) => void;
  onLog?: (level: ToolLogLevel, message: string) => void;
  /** Called as soon as it is known that there is neither a source flag nor a `toolpack.yaml`. */
  onNoSources?: () => void;
  /**
   * Called once the arguments are read, just before the tool runs: from then on `signal`
   * cancels the call (the CLI lets Ctrl-C end discovery the ordinary way).
   */
  onCallStart?: () => void;
  /** The tool is not there and discovery had errors (the likely reason); E_UNKNOWN_TOOL follows. */
  onUnknownToolErrors?: (errors: Diagnostic[]) => void;
}

/**
 * Validates and runs one tool as a client would (built-ins and workflows too). A result
 * with `isError` is returned, not thrown: it is the tool's answer.
 */
export async function callTool(options: CallToolOptions): Promise<ToolCallResult> {
  const { cwd, name } = options;
  const { resolved, tools, diagnostics } = await discoverEveryTool(options);
  const runner = createToolRunner({
    projectRoot: cwd,
    envAllowList: resolved.envAllowList,
    ...(resolved.interpreters === undefined ? {} : { interpreters: resolved.interpreters }),
    ...(resolved.progressTimeoutCapMs === undefined
      ? {}
      : { progressTimeoutCapMs: resolved.progressTimeoutCapMs }),
    requireSandbox: options.requireSandbox === true || resolved.policy?.requireSandbox === true,
  });
  try {
    const dispatcher = createToolDispatcher({ tools, runner });
    const tool = dispatcher.get(name);
    if (tool === undefined) {
      if (hasErrors(diagnostics))
        options.onUnknownToolErrors?.(diagnostics.filter((x) => x.severity === 'error'));
      throw new ToolpackError('E_UNKNOWN_TOOL', `No tool is named ${name}.`, {
        hint: describeUnknownTool(tools, name),
      });
    }
    const args = readArguments(tool, options);
    options.onCallStart?.();
    return await dispatcher.call(name, args, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.onLog === undefined ? {} : { onLog: options.onLog }),
    });
  } finally {
    await runner.close();
  }
}

function readArguments(tool: DiscoveredTool, flags: CallArguments): Record<string, unknown> {
  if (flags.args !== undefined && flags.arg !== undefined) {
    throw new ToolpackError(
      'E_USAGE',
      'Give the arguments either as --args JSON or as --arg key=value, not both.',
    );
  }
  if (flags.args !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(flags.args);
    } catch (error) {
      throw new ToolpackError(
        'E_ARGUMENTS_JSON',
        `--args is not valid JSON: ${(error as Error).message}.`,
        {
          hint: `Quote the object for your shell: --args '{"key": "value"}'.`,
        },
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ToolpackError(
        'E_ARGUMENTS_JSON',
        '--args must be a JSON object, such as {"key": "value"}.',
      );
    }
    return parsed as Record<string, unknown>;
  }
  const args: Record<string, unknown> = {};
  for (const pair of flags.arg ?? []) {
    const equals = pair.indexOf('=');
    if (equals <= 0) {
      throw new ToolpackError('E_USAGE', `--arg ${pair} is not key=value.`, {
        hint: 'Write --arg name=value.',
      });
    }
    const key = pair.slice(0, equals);
    args[key] = readValue(key, pair.slice(equals + 1), tool.inputSchema.properties?.[key]);
  }
  return args;
}

/** Reads `--arg` text by the parameter's declared type, so `--arg id=007` stays a string for a string id. */
function readValue(key: string, text: string, schema: JsonSchema | undefined): unknown {
  const type = schema?.type;
  const fail = (expected: string): never => {
    throw new ToolpackError('E_ARGUMENTS_JSON', `--arg ${key}=${text}: expected ${expected}.`);
  };
  switch (type) {
    case 'string':
      return text;
    case 'integer':
    case 'number': {
      const n = Number(text);
      if (
        text.trim() === '' ||
        !Number.isFinite(n) ||
        (type === 'integer' && !Number.isInteger(n))
      ) {
        return fail(type === 'integer' ? 'a whole number' : 'a number');
      }
      return n;
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      return fail('true or false');
    case 'array':
    case 'object':
      try {
        return JSON.parse(text);
      } catch {
        return fail(type === 'array' ? 'a JSON array, such as ["a","b"]' : 'a JSON object');
      }
    default:
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
  }
}
