import { Command } from 'commander';
import {
  ToolpackError,
  hasErrors,
  type DiscoveredTool,
  type JsonSchema,
  type ToolCallResult,
  type SourceSpec,
} from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import { createToolRunner } from '@toolpack/runners';
import { createToolDispatcher } from '@toolpack/server';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import {
  addSourceFlags,
  describeNoSources,
  resolveSources,
  type SourceFlagValues,
} from '../../source-flags.ts';
import { collect, parseTimeout } from '../../option-parsers.ts';
import { describeUnknownTool } from '../../suggest-tool-names.ts';

interface CallFlags extends SourceFlagValues {
  args?: string;
  arg?: string[];
  timeout?: number;
  json?: boolean;
}

export function createCallCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('call')
    .description('Call one tool with arguments, as a client would, and print its result')
    .argument('<tool>', 'the tool name, as mcp list shows it')
    .option('--args <json>', 'the arguments as one JSON object')
    .option(
      '--arg <key=value>',
      'one argument; the value is read by the parameter type (numbers, true/false, JSON for arrays and objects); repeatable',
      collect,
    )
    .option(
      '--timeout <ms>',
      'stop the call after this many milliseconds (default: the tool’s, else 30000)',
      parseTimeout,
    )
    .option('--json', 'print the MCP CallToolResult object');
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
Examples:
  mcp call Get_DiskUsage --arg Path=. --arg Top=3
  mcp call add_numbers --args '{"numbers": [1, 2, 3]}' --json
  mcp call word_count --script-root ./scripts --arg text="one two"

Exit codes: 0 the tool succeeded, 1 the result is an error (isError), 2 bad flags, bad arguments JSON or an unknown tool.`,
  );
  command.action(async (name: string, flags: CallFlags) => {
    const resolved = await resolveSources(sources, flags, io);
    if (resolved.origin === 'none') io.stderr.write(describeNoSources());
    // A call needs one tool, not a servable catalogue: too many tools is no reason to refuse it.
    const { tools, diagnostics } = await discoverTools({
      ...resolved.options,
      maxTools: Number.MAX_SAFE_INTEGER,
    });
    const runner = createToolRunner({
      projectRoot: io.cwd,
      envAllowList: resolved.envAllowList,
      ...(resolved.interpreters === undefined ? {} : { interpreters: resolved.interpreters }),
    });
    const dispatcher = createToolDispatcher({ tools, runner });
    const tool = dispatcher.get(name);
    if (tool === undefined && hasErrors(diagnostics)) {
      const paint = createPainter(io.stderr, io.env);
      for (const d of diagnostics.filter((x) => x.severity === 'error')) {
        io.stderr.write(
          `${paint('dim', `${d.path}${d.line === undefined ? '' : `:${d.line}`}: ${d.message}`)}\n`,
        );
      }
    }
    if (tool === undefined) {
      throw new ToolpackError('E_UNKNOWN_TOOL', `No tool is named ${name}.`, {
        hint: describeUnknownTool(tools, name),
      });
    }
    const args = readArguments(tool, flags);

    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    process.once('SIGINT', onInterrupt);
    try {
      const result = await dispatcher.call(name, args, {
        signal: abort.signal,
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        onProgress: (p) =>
          io.stderr.write(
            `progress ${p.progress}${p.total === undefined ? '' : `/${p.total}`}${p.message ? ` ${p.message}` : ''}\n`,
          ),
        onLog: (level, message) => io.stderr.write(`${level}: ${message}\n`),
      });
      printResult(result, flags.json === true, io);
      done(result.isError ? EXIT_FAILURE : EXIT_OK);
    } finally {
      process.off('SIGINT', onInterrupt);
      await runner.close();
    }
  });
  return command;
}

function readArguments(tool: DiscoveredTool, flags: CallFlags): Record<string, unknown> {
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

function printResult(result: ToolCallResult, json: boolean, io: CliIo): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const stream = result.isError ? io.stderr : io.stdout;
  const texts = result.content.filter((block) => block.type === 'text').map((block) => block.text);
  if (texts.length > 0) {
    stream.write(`${texts.join('\n')}\n`);
  } else if (result.structuredContent !== undefined) {
    stream.write(`${JSON.stringify(result.structuredContent, null, 2)}\n`);
  }
  for (const block of result.content) {
    if (block.type !== 'text') stream.write(`[${block.type} content]\n`);
  }
}
