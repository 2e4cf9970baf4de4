import path from 'node:path';
import type { CommandContext } from '../../../io.ts';
import { describeNeeds } from '../describe-needs.ts';
import { describeGitIgnore, describeRegistration } from '../describe-registration.ts';
import { ignoreToolpackFolder, type GitIgnoreChange } from '../ignore-toolpack-folder.ts';
import {
  checkCombination,
  planTool,
  type PlannedSource,
  type ToolKind,
  type ToolLang,
} from '../plan-tool.ts';
import { refuseExisting } from '../refuse-existing.ts';
import { findProjectDir, registerSource, type SourceRegistration } from '../register-source.ts';
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
  /** Where `mcp` was started (default: this process's folder): the project the tool joins. */
  startDir?: string;
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
  /** How the project's `toolpack.yaml` serves the tool. */
  registered: SourceRegistration;
  /** How `.toolpack/` is kept out of git. */
  gitignore: GitIgnoreChange;
  /** What else was changed, for the report: toolpack.yaml, .gitignore. */
  changes: string[];
  /** What this machine still lacks to run the tool, and what could not be changed. */
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

  const startDir = options.startDir ?? process.cwd();
  const projectDir = await findProjectDir(startDir, dir);
  const registered = await registerSource({ projectDir, source: plan.source });
  const gitignore = await ignoreToolpackFolder(projectDir, options.env);
  const described = [describeRegistration(registered), describeGitIgnore(gitignore)];
  // Once toolpack.yaml serves the tool, the project's own commands reach it; else the flags.
  const inProject =
    registered.outcome === 'not-written'
      ? undefined
      : projectDir === startDir
        ? 'mcp'
        : `mcp -C ${showPath(projectDir)}`;
  const next =
    inProject === undefined
      ? [
          sourceCommand('check', plan.source),
          sourceCommand('test', plan.source),
          `mcp call ${plan.toolName} ${plan.sampleArg} ${plan.source.flag} ${showPath(plan.source.path)}`,
        ]
      : [
          `${inProject} check`,
          `${inProject} test`,
          `${inProject} call ${plan.toolName} ${plan.sampleArg}`,
        ];
  const notes = [...describeNeeds(plan, options.env), ...described.flatMap((d) => d.notes)];
  return {
    tool: plan.toolName,
    kind,
    lang: lang ?? null,
    files: plan.files.map((file) => file.path),
    source: { [plan.source.key]: plan.source.path },
    next,
    registered,
    gitignore,
    changes: described.flatMap((d) => d.changes),
    notes,
  };
}
