import path from 'node:path';
import type { Diagnostic, DiscoveredTool, ToolDefinition } from '@toolpack/core';

/** A tool as `--json` prints it: what a client sees plus its source, paths relative to the project. */
export type ToolView = Omit<ToolDefinition, 'timeoutMs'>;

export function displayPath(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(cwd, file);
  // Another drive on Windows has no relative form; everything else prints relative, so the
  // output is the same on every machine the project is checked out on.
  if (relative === '' || path.isAbsolute(relative)) return file;
  return relative.split(path.sep).join('/');
}

export function toToolView(tool: DiscoveredTool, cwd: string): ToolView {
  const view: ToolView = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    source: { ...tool.source, path: displayPath(tool.source.path, cwd) },
  };
  if (tool.title !== undefined) view.title = tool.title;
  if (tool.outputSchema !== undefined) view.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined && Object.keys(tool.annotations).length > 0)
    view.annotations = tool.annotations;
  if (tool.inputExamples !== undefined && tool.inputExamples.length > 0)
    view.inputExamples = tool.inputExamples;
  if (tool.parameterSets !== undefined) view.parameterSets = tool.parameterSets;
  if (tool.longRunning === true) view.longRunning = true;
  if (tool.progressResetsTimeout === true) view.progressResetsTimeout = true;
  // Key order of the printed object: name, title, description, schemas, examples, parameter
  // sets, annotations, opt-ins, source.
  const {
    name,
    title,
    description,
    inputSchema,
    outputSchema,
    inputExamples,
    parameterSets,
    annotations,
    longRunning,
    progressResetsTimeout,
    source,
  } = view;
  return JSON.parse(
    JSON.stringify({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      inputExamples,
      parameterSets,
      annotations,
      longRunning,
      progressResetsTimeout,
      source,
    }),
  ) as ToolView;
}

export function toDiagnosticView(diagnostic: Diagnostic, cwd: string): Diagnostic {
  return { ...diagnostic, path: displayPath(diagnostic.path, cwd) };
}
