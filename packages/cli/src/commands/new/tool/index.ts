import path from 'node:path';
import type { CommandContext } from '../../../io.ts';
import { describeNeeds } from '../describe-needs.ts';
import {
  checkCombination,
  planTool,
  type PlannedSource,
  type ToolKind,
  type ToolLang,
} from '../plan-tool.ts';
import { refuseExisting } from '../refuse-existing.ts';
import { showPath } from '../show-path.ts';
import { defaultToolDescription, readDescription } from '../tool-description.ts';
import { deriveToolNames } from '../tool-names.ts';
import { writeNewFiles } from '../write-new-files.ts';

export interface ScaffoldToolOptions extends CommandContext {
  /** What the tool does, in any case: send-notification, SendNotification, send_notification. */
  name: string;
  kind?: string;
  lang?: string;
  description?: string;
}

/** What `mcp new tool --json` prints. */
export interface ScaffoldedTool {
  tool: string;
  kind: ToolKind;
  lang: ToolLang | null;
  files: string[];
  /** The `toolpack.yaml` source that serves the tool: `{ scripts: DIR }` and the like. */
  source: Record<string, string>;
  /** Commands to run next, as typed where `mcp` was started. */
  next: string[];
  /** What this machine still lacks to run the tool. */
  notes: string[];
}

function sourceCommand(verb: string, source: PlannedSource): string {
  return `mcp ${verb} ${source.flag} ${showPath(source.path)}`;
}

/** Writes one tool (with a test) from a template that `mcp check` accepts; never overwrites. */
export async function scaffoldTool(options: ScaffoldToolOptions): Promise<ScaffoldedTool> {
  const { kind, lang } = checkCombination(options.kind, options.lang);
  const names = deriveToolNames(options.name);
  const dir = options.cwd;
  const plan = planTool({
    names,
    kind,
    lang,
    dir,
    description: readDescription(options.description, defaultToolDescription(names, lang)),
    runTestWith: (source) => sourceCommand('test', source),
  });
  await refuseExisting(plan.files, kind === 'folder' ? [path.join(dir, names.kebab)] : []);
  await writeNewFiles(plan.files);

  const next = [
    sourceCommand('check', plan.source),
    sourceCommand('test', plan.source),
    `mcp call ${plan.toolName} ${plan.sampleArg} ${plan.source.flag} ${showPath(plan.source.path)}`,
  ];
  const notes = describeNeeds(plan, options.env);
  return {
    tool: plan.toolName,
    kind,
    lang: lang ?? null,
    files: plan.files.map((file) => file.path),
    source: { [plan.source.key]: plan.source.path },
    next,
    notes,
  };
}
