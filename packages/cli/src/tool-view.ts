import path from 'node:path';
import type {
  BoundCredential,
  Diagnostic,
  DiscoveredTool,
  SchemaDialect,
  ToolDefinition,
} from '@toolpack/core';
import { toListedTool } from '@toolpack/server';

/**
 * A tool as `--json` prints it: what a client sees plus its source, paths relative to the
 * project, and the parameters the server binds from secrets (where from, never a value).
 */
export type ToolView = Omit<ToolDefinition, 'timeoutMs'> & {
  credentials?: Omit<BoundCredential, 'sets'>[];
};

export function displayPath(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(cwd, file);
  // Another drive on Windows has no relative form; everything else prints relative, so the
  // output is the same on every machine the project is checked out on.
  if (relative === '' || path.isAbsolute(relative)) return file;
  return relative.split(path.sep).join('/');
}

/**
 * The view of a tool. With `dialect`, its description and input schema are what tools/list
 * sends in that schema dialect; without, the tool's own (exact) ones.
 */
export function toToolView(tool: DiscoveredTool, cwd: string, dialect?: SchemaDialect): ToolView {
  const listed = dialect === undefined ? tool : toListedTool(tool, dialect);
  // Every field of a view (the mapped type makes leaving one out a type error), in the order
  // --json prints them; the JSON copy drops the undefined ones and shares nothing with the tool.
  const view: { [K in keyof Required<ToolView>]: ToolView[K] | undefined } = {
    name: tool.name,
    title: tool.title,
    description: listed.description ?? tool.description,
    inputSchema: listed.inputSchema as ToolView['inputSchema'],
    outputSchema: tool.outputSchema,
    inputExamples:
      tool.inputExamples !== undefined && tool.inputExamples.length > 0
        ? tool.inputExamples
        : undefined,
    parameterSets: tool.parameterSets,
    annotations:
      tool.annotations !== undefined && Object.keys(tool.annotations).length > 0
        ? tool.annotations
        : undefined,
    longRunning: tool.longRunning === true ? true : undefined,
    progressResetsTimeout: tool.progressResetsTimeout === true ? true : undefined,
    source: { ...tool.source, path: displayPath(tool.source.path, cwd) },
    credentials: listBoundCredentials(tool),
  };
  return JSON.parse(JSON.stringify(view)) as ToolView;
}

function listBoundCredentials(tool: DiscoveredTool): ToolView['credentials'] {
  const { invocation } = tool;
  if (invocation.runner !== 'pwsh' || invocation.mode === 'tool-folder') return undefined;
  const bound = invocation.credentials ?? [];
  return bound.length === 0 ? undefined : bound.map(({ sets: _sets, ...credential }) => credential);
}

export function toDiagnosticView(diagnostic: Diagnostic, cwd: string): Diagnostic {
  return { ...diagnostic, path: displayPath(diagnostic.path, cwd) };
}
