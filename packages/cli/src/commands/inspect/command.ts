import { Command } from 'commander';
import {
  formatDiagnostic,
  type JsonSchema,
  type ObjectJsonSchema,
  type SchemaDialect,
  type SourceSpec,
  type ToolParameterSet,
} from '@toolpack/core';
import { EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { parseSchemaDialect } from '../../option-parsers.ts';
import { renderTable } from '../../render-table.ts';
import { addSourceFlags, describeNoSources, type SourceFlagValues } from '../../source-flags.ts';
import { inspectTool, type ToolInspection } from './index.ts';

const CONSTRAINT_KEYS = [
  'enum',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
] as const;

function describeType(schema: JsonSchema): string {
  const type = Array.isArray(schema.type) ? schema.type.join('|') : String(schema.type ?? 'any');
  if (type === 'array' && typeof schema.items === 'object' && schema.items !== null) {
    return `${describeType(schema.items as JsonSchema)}[]`;
  }
  return type;
}

function describeConstraints(schema: JsonSchema): string {
  return CONSTRAINT_KEYS.filter((key) => schema[key] !== undefined)
    .map((key) => `${key} ${JSON.stringify(schema[key])}`)
    .join(', ');
}

export function createInspectCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('inspect')
    .description(
      'Show one tool exactly as a client sees it: schema, hints, source file and line, problems',
    )
    .argument('<tool>', 'the tool name, as mcp list shows it')
    .option('--json', 'print the tool definition and its diagnostics as JSON')
    .option(
      '--schema-dialect <dialect>',
      'show input schemas as tools/list sends them in this dialect (portable, exact, openai-strict); default: each tool’s own',
      parseSchemaDialect,
    );
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
Examples:
  mcp inspect New_Greeting
  mcp inspect Find_Widget --schema-dialect portable   # as tools/list sends it by default
  mcp inspect Widgets_Add_Widget --module ./Widgets/Widgets.psd1 --prefix --json

Exit codes: 0 shown, 2 unknown tool or bad flags.`,
  );
  command.action(
    async (
      name: string,
      flags: SourceFlagValues & { json?: boolean; schemaDialect?: SchemaDialect },
    ) => {
      const inspection = await inspectTool({
        cwd: io.cwd,
        env: io.env,
        name,
        sources,
        flags,
        onNoSources: () => io.stderr.write(describeNoSources()),
        ...(flags.schemaDialect === undefined ? {} : { schemaDialect: flags.schemaDialect }),
      });
      io.stdout.write(
        flags.json ? `${JSON.stringify(inspection, null, 2)}\n` : renderInspection(inspection, io),
      );
      done(EXIT_OK);
    },
  );
  return command;
}

function renderInspection(
  { tool: view, diagnostics: problems }: ToolInspection,
  io: CliIo,
): string {
  const paint = createPainter(io.stdout, io.env);
  const where =
    view.source.line === undefined ? view.source.path : `${view.source.path}:${view.source.line}`;
  const hints = Object.entries(view.annotations ?? {})
    .filter(([key]) => key.endsWith('Hint'))
    .map(([key, value]) => `${key}: ${String(value)}`);
  let out = `${paint('bold', view.name)}${view.title === undefined ? '' : ` — ${view.title}`}\n`;
  out += `${view.description}\n\n`;
  out += `source   ${view.source.kind} ${where}${view.source.pack === undefined ? '' : ` (pack ${view.source.pack})`}\n`;
  out += `hints    ${hints.length > 0 ? hints.join(', ') : 'none'}\n`;
  const optIns = [
    ...(view.longRunning === true ? ['long-running'] : []),
    ...(view.progressResetsTimeout === true ? ['progress resets timeout'] : []),
  ];
  if (optIns.length > 0) out += `options  ${optIns.join(', ')}\n`;
  out += `\n${paint('bold', 'Parameters')}\n`;
  out += renderProperties(view.inputSchema, io);
  if (view.credentials !== undefined) {
    out += `\n${paint('bold', 'Bound by the server')} (from secrets in toolpack.yaml credentials:, never sent by a client)\n`;
    out += renderTable(
      [
        { title: 'PARAMETER', max: 40 },
        { title: 'TYPE', max: 12 },
        { title: 'FROM', max: 400, flex: true },
      ],
      view.credentials.map((credential) => [
        credential.parameter,
        credential.type,
        [credential.username, credential.password]
          .filter((source) => source !== undefined)
          .map((source) =>
            typeof source === 'string'
              ? `user ${source}`
              : 'env' in source
                ? `env ${source.env}`
                : `file ${source.file}`,
          )
          .join(', '),
      ]),
      io.stdout.isTTY ? Math.max(80, io.stdout.columns ?? 120) : Number.POSITIVE_INFINITY,
    ).replace(/^/gm, '  ');
  }
  if (view.parameterSets !== undefined) {
    out += `\n${paint('bold', 'Parameter sets')} (a call binds one; the default when its arguments fit it)\n`;
    out += renderParameterSets(view.parameterSets, io);
  }
  out += `\n${paint('bold', 'Input schema')}\n${JSON.stringify(view.inputSchema, null, 2)}\n`;
  if (view.outputSchema !== undefined) {
    out += `\n${paint('bold', 'Output')}\n`;
    out += renderProperties(view.outputSchema, io);
    out += `\n${paint('bold', 'Output schema')}\n${JSON.stringify(view.outputSchema, null, 2)}\n`;
  }
  if (view.inputExamples !== undefined && view.inputExamples.length > 0) {
    out += `\n${paint('bold', 'Examples')}\n`;
    for (const example of view.inputExamples) {
      out += `  ${example.description ?? '(no description)'}\n    ${JSON.stringify(example.arguments)}\n`;
    }
  }
  if (problems.length > 0) {
    out += `\n${paint('bold', 'Problems')}\n`;
    for (const { hint, ...rest } of problems) {
      out += `  ${formatDiagnostic(rest)}\n${hint === undefined ? '' : `    fix: ${hint}\n`}`;
    }
  }
  return out;
}

/** A PowerShell command's parameter sets as a table: name, default, required, takes. */
function renderParameterSets(sets: readonly ToolParameterSet[], io: CliIo): string {
  return renderTable(
    [
      { title: 'SET', max: 40 },
      { title: 'DEFAULT', max: 7 },
      { title: 'REQUIRED', max: 80 },
      { title: 'TAKES', max: 400, flex: true },
    ],
    sets.map((set) => [
      set.name,
      set.isDefault ? 'yes' : '',
      set.required.join(', '),
      set.parameters.length === 0 ? 'no parameters' : set.parameters.join(', '),
    ]),
    io.stdout.isTTY ? Math.max(80, io.stdout.columns ?? 120) : Number.POSITIVE_INFINITY,
  ).replace(/^/gm, '  ');
}

/** An object schema's properties as a table: name, type, required, default, constraints, description. */
function renderProperties(objectSchema: ObjectJsonSchema, io: CliIo): string {
  const properties = Object.entries(objectSchema.properties ?? {});
  const required = new Set(objectSchema.required ?? []);
  if (properties.length === 0) return '  none\n';
  return renderTable(
    [
      { title: 'NAME', max: 32 },
      { title: 'TYPE', max: 20 },
      { title: 'REQUIRED', max: 8 },
      { title: 'DEFAULT', max: 20 },
      { title: 'CONSTRAINTS', max: 60 },
      { title: 'DESCRIPTION', max: 400, flex: true },
    ],
    properties.map(([key, schema]) => [
      key,
      describeType(schema),
      required.has(key) ? 'yes' : '',
      schema.default === undefined ? '' : JSON.stringify(schema.default),
      describeConstraints(schema),
      typeof schema.description === 'string' ? schema.description : '',
    ]),
    io.stdout.isTTY ? Math.max(80, io.stdout.columns ?? 120) : Number.POSITIVE_INFINITY,
  ).replace(/^/gm, '  ');
}
