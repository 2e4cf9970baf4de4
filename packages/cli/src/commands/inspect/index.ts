import {
  ToolpackError,
  type Diagnostic,
  type SchemaDialect,
  type SourceSpec,
} from '@toolpack/core';
import type { CommandContext } from '../../io.ts';
import { discoverEveryTool } from '../../discover-every-tool.ts';
import type { SourceFlagValues } from '../../source-flags.ts';
import { describeUnknownTool } from '../../suggest-tool-names.ts';
import { toDiagnosticView, toToolView, type ToolView } from '../../tool-view.ts';

export interface InspectToolOptions extends CommandContext {
  /** The tool's name, as `mcp list` shows it. */
  name: string;
  sources: SourceSpec[];
  flags: SourceFlagValues;
  /** Called as soon as it is known that there is neither a source flag nor a `toolpack.yaml`. */
  onNoSources?: () => void;
  /** Show the input schema as tools/list sends it in this dialect; default: the exact one. */
  schemaDialect?: SchemaDialect;
}

/** What `mcp inspect --json` prints. */
export interface ToolInspection {
  tool: ToolView;
  /** The problems of the tool's source file. */
  diagnostics: Diagnostic[];
}

/** One tool exactly as a client sees it, with the problems of its file. */
export async function inspectTool(options: InspectToolOptions): Promise<ToolInspection> {
  const { cwd, name } = options;
  const { resolved, tools, diagnostics } = await discoverEveryTool(options);
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) {
    throw new ToolpackError('E_UNKNOWN_TOOL', `No tool is named ${name}.`, {
      hint: describeUnknownTool(tools, name),
    });
  }
  return {
    tool: toToolView(tool, cwd, options.schemaDialect),
    diagnostics: [...resolved.diagnostics, ...diagnostics]
      .filter((d) => d.path === tool.source.path)
      .map((d) => toDiagnosticView(d, cwd)),
  };
}
