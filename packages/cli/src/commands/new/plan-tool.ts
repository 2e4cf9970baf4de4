import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import {
  SAMPLE,
  renderBasic,
  renderFolderJavaScript,
  renderFolderMetadata,
  renderFolderPowerShell,
  renderFolderPython,
  renderFolderShell,
  renderJsModule,
  renderModuleNodeTest,
  renderPowerShellModule,
  renderPowerShellTest,
  renderScriptJavaScript,
  renderScriptPowerShell,
  renderScriptPython,
  renderScriptShell,
  renderServerNodeTest,
  type TemplateInput,
} from './templates.ts';
import type { ToolNames } from './tool-names.ts';

export const TOOL_KINDS = ['folder', 'script', 'module', 'basic'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];
export const TOOL_LANGS = ['ps1', 'sh', 'py', 'js', 'ts'] as const;
export type ToolLang = (typeof TOOL_LANGS)[number];

/** The languages each kind can be written in; BASIC is its own language. */
export const LANGS_BY_KIND: Readonly<Record<ToolKind, readonly ToolLang[]>> = {
  folder: TOOL_LANGS,
  script: TOOL_LANGS,
  module: ['ps1', 'js', 'ts'],
  basic: [],
};

export function describeCombinations(): string {
  return TOOL_KINDS.map((kind) =>
    LANGS_BY_KIND[kind].length === 0
      ? `--kind ${kind} (no --lang)`
      : `--kind ${kind} --lang ${LANGS_BY_KIND[kind].join('|')}`,
  ).join('; ');
}

/** Checks `--kind`/`--lang` together; throws `E_USAGE` naming the combinations that exist. */
export function checkCombination(
  kind: string | undefined,
  lang: string | undefined,
): { kind: ToolKind; lang: ToolLang | undefined } {
  const hint = `The combinations are: ${describeCombinations()}.`;
  if (kind === undefined) {
    throw new ToolpackError('E_USAGE', 'Say which kind of tool to create with --kind.', { hint });
  }
  if (!(TOOL_KINDS as readonly string[]).includes(kind)) {
    throw new ToolpackError(
      'E_USAGE',
      `--kind ${kind} is not a kind of tool (${TOOL_KINDS.join(', ')}).`,
      { hint },
    );
  }
  const langs = LANGS_BY_KIND[kind as ToolKind];
  if (langs.length === 0) {
    if (lang !== undefined) {
      throw new ToolpackError(
        'E_USAGE',
        `--kind ${kind} takes no --lang: BASIC tools are written in BASIC.`,
        { hint },
      );
    }
    return { kind: kind as ToolKind, lang: undefined };
  }
  if (lang === undefined) {
    throw new ToolpackError(
      'E_USAGE',
      `Say which language the ${kind} tool is in with --lang ${langs.join('|')}.`,
      { hint },
    );
  }
  if (!(langs as readonly string[]).includes(lang)) {
    throw new ToolpackError(
      'E_USAGE',
      `--kind ${kind} cannot be written in --lang ${lang}; it takes ${langs.join(', ')}.`,
      { hint },
    );
  }
  return { kind: kind as ToolKind, lang: lang as ToolLang };
}

export interface PlannedFile {
  /** Absolute. */
  path: string;
  content: string;
  /** Scripts with a shebang get the executable bit. */
  executable?: boolean;
  role: 'tool' | 'metadata' | 'test';
}

/** Where discovery finds the new tool: a source flag for the CLI, a key for toolpack.yaml. */
export interface PlannedSource {
  key: 'tools' | 'scripts' | 'module';
  flag: '--tools-dir' | '--script-root' | '--module';
  /** Absolute: the folder of tool folders, the script root, or the module file. */
  path: string;
}

export interface ToolPlan {
  /** The name `mcp list` will show (before any pack or module prefix). */
  toolName: string;
  files: PlannedFile[];
  source: PlannedSource;
  /** `--arg text=hello`: a call that works, for the printed next steps. */
  sampleArg: string;
  /** What must be on the machine besides Node for the tool to run or load. */
  needs: ('pwsh' | 'python3' | 'bash' | 'toolpack-core' | 'basic-interpreter')[];
}

export interface PlanToolOptions {
  names: ToolNames;
  kind: ToolKind;
  lang: ToolLang | undefined;
  /** The folder the tool goes into (absolute). */
  dir: string;
  description: string;
  /** How to run the test, for the comment at its top. */
  runTestWith: (source: PlannedSource) => string;
}

const NEEDS_BY_LANG: Record<ToolLang, ToolPlan['needs']> = {
  ps1: ['pwsh'],
  sh: ['bash'],
  py: ['python3'],
  js: [],
  ts: [],
};

/** Every file of one new tool, nothing written yet (so nothing is written when one exists). */
export function planTool(options: PlanToolOptions): ToolPlan {
  const { names, kind, lang, dir } = options;
  const input: TemplateInput = { names, description: options.description };
  const echo = { text: SAMPLE.text, characters: SAMPLE.characters };
  const expectedFor = (language: ToolLang): Record<string, unknown> =>
    language === 'sh' ? { tool: names.snake, received: { text: SAMPLE.text } } : echo;

  switch (kind) {
    case 'folder': {
      const language = lang ?? 'ps1';
      const folder = path.join(dir, names.kebab);
      const source: PlannedSource = { key: 'tools', flag: '--tools-dir', path: dir };
      const runWith = options.runTestWith(source);
      const script: Record<ToolLang, () => string> = {
        ps1: () => renderFolderPowerShell(input),
        sh: () => renderFolderShell(input),
        py: () => renderFolderPython(input),
        js: () => renderFolderJavaScript(false),
        ts: () => renderFolderJavaScript(true),
      };
      const test: PlannedFile =
        language === 'ps1'
          ? {
              path: path.join(folder, 'test.ps1'),
              role: 'test',
              content: renderPowerShellTest({ toolName: names.snake, parameter: 'text', runWith }),
            }
          : {
              path: path.join(folder, language === 'ts' ? 'test.ts' : 'test.mjs'),
              role: 'test',
              content: renderServerNodeTest({
                toolName: names.snake,
                expected: expectedFor(language),
                runWith,
                typed: language === 'ts',
              }),
            };
      return {
        toolName: names.snake,
        source,
        sampleArg: `--arg text=${SAMPLE.text}`,
        needs: NEEDS_BY_LANG[language],
        files: [
          {
            path: path.join(folder, 'metadata.yaml'),
            role: 'metadata',
            content: renderFolderMetadata(input),
          },
          {
            path: path.join(folder, `script.${language}`),
            role: 'tool',
            content: script[language](),
            ...(language === 'sh' || language === 'py' ? { executable: true } : {}),
          },
          test,
        ],
      };
    }
    case 'script': {
      const language = lang ?? 'ps1';
      const source: PlannedSource = { key: 'scripts', flag: '--script-root', path: dir };
      const runWith = options.runTestWith(source);
      if (language === 'ps1') {
        return {
          toolName: names.verbNounTool,
          source,
          sampleArg: `--arg Text=${SAMPLE.text}`,
          needs: ['pwsh'],
          files: [
            {
              path: path.join(dir, `${names.verbNoun}.ps1`),
              role: 'tool',
              content: renderScriptPowerShell(input),
            },
            {
              path: path.join(dir, `${names.verbNoun}.test.ps1`),
              role: 'test',
              content: renderPowerShellTest({
                toolName: names.verbNounTool,
                parameter: 'Text',
                runWith,
              }),
            },
          ],
        };
      }
      const render: Record<Exclude<ToolLang, 'ps1'>, () => string> = {
        sh: () => renderScriptShell(input),
        py: () => renderScriptPython(input),
        js: () => renderScriptJavaScript(input, false),
        ts: () => renderScriptJavaScript(input, true),
      };
      return {
        toolName: names.snake,
        source,
        sampleArg: `--arg text=${SAMPLE.text}`,
        needs: NEEDS_BY_LANG[language],
        files: [
          {
            path: path.join(dir, `${names.snake}.${language}`),
            role: 'tool',
            content: render[language](),
            ...(language === 'sh' || language === 'py' ? { executable: true } : {}),
          },
          {
            path: path.join(dir, `${names.snake}.test.${language === 'ts' ? 'ts' : 'mjs'}`),
            role: 'test',
            content: renderServerNodeTest({
              toolName: names.snake,
              expected: expectedFor(language),
              runWith,
              typed: language === 'ts',
            }),
          },
        ],
      };
    }
    case 'module': {
      const language = lang ?? 'ps1';
      if (language === 'ps1') {
        const file = path.join(dir, `${names.pascal}.psm1`);
        const source: PlannedSource = { key: 'module', flag: '--module', path: file };
        return {
          toolName: names.verbNounTool,
          source,
          sampleArg: `--arg Text=${SAMPLE.text}`,
          needs: ['pwsh'],
          files: [
            { path: file, role: 'tool', content: renderPowerShellModule(input) },
            {
              path: path.join(dir, `${names.pascal}.test.ps1`),
              role: 'test',
              content: renderPowerShellTest({
                toolName: names.verbNounTool,
                parameter: 'Text',
                runWith: options.runTestWith(source),
              }),
            },
          ],
        };
      }
      // .mjs, not .js: an ES module whatever package.json says (or whether there is one).
      const extension = language === 'ts' ? 'ts' : 'mjs';
      const moduleFile = `${names.kebab}.${extension}`;
      const file = path.join(dir, moduleFile);
      return {
        toolName: names.snake,
        source: { key: 'module', flag: '--module', path: file },
        sampleArg: `--arg text=${SAMPLE.text}`,
        needs: ['toolpack-core'],
        files: [
          { path: file, role: 'tool', content: renderJsModule(input) },
          {
            path: path.join(dir, `${names.kebab}.test.${extension}`),
            role: 'test',
            content: renderModuleNodeTest({ names, moduleFile, typed: language === 'ts' }),
          },
        ],
      };
    }
    case 'basic':
      return {
        toolName: names.snake,
        source: { key: 'scripts', flag: '--script-root', path: dir },
        sampleArg: `--arg text=${SAMPLE.text}`,
        needs: ['basic-interpreter'],
        files: [
          { path: path.join(dir, `${names.snake}.bas`), role: 'tool', content: renderBasic(input) },
        ],
      };
  }
}
