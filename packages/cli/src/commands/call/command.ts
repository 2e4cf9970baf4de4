import { Command } from 'commander';
import type { SourceSpec, ToolCallResult } from '@toolpack/core';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { collect, parseTimeout } from '../../option-parsers.ts';
import { addSourceFlags, describeNoSources, type SourceFlagValues } from '../../source-flags.ts';
import { callTool } from './index.ts';

interface CallFlags extends SourceFlagValues {
  args?: string;
  arg?: string[];
  timeout?: number;
  json?: boolean;
  requireSandbox?: boolean;
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
    .option('--json', 'print the MCP CallToolResult object')
    .option(
      '--require-sandbox',
      'refuse to run a pack tool where the OS sandbox cannot be had, instead of running it unconfined',
    );
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
    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    try {
      const result = await callTool({
        cwd: io.cwd,
        env: io.env,
        name,
        sources,
        flags,
        ...(flags.args === undefined ? {} : { args: flags.args }),
        ...(flags.arg === undefined ? {} : { arg: flags.arg }),
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        ...(flags.requireSandbox === true ? { requireSandbox: true } : {}),
        signal: abort.signal,
        onNoSources: () => io.stderr.write(describeNoSources()),
        onUnknownToolErrors: (errors) => {
          const paint = createPainter(io.stderr, io.env);
          for (const d of errors) {
            io.stderr.write(
              `${paint('dim', `${d.path}${d.line === undefined ? '' : `:${d.line}`}: ${d.message}`)}\n`,
            );
          }
        },
        onCallStart: () => process.once('SIGINT', onInterrupt),
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
    }
  });
  return command;
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
