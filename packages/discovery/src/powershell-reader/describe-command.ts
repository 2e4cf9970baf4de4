import {
  addParameterSetBranches,
  buildInputSchema,
  createDiagnostic,
  findParameterProblems,
  hasErrors,
  isToolpackError,
  normalizeToolName,
  parseHints,
} from '@toolpack/core';
import type { Diagnostic, DiscoveredTool, ToolInvocation } from '@toolpack/core';
import { markHelpGaps } from '../lenient-help.ts';
import { findParameterComments, joinHelpDescription } from './comment-help.ts';
import type { HelpSearch } from './comment-help.ts';
import { listCommonParameters } from './common-parameters.ts';
import { convertParameters } from './convert-parameters.ts';
import { describeOutput } from './describe-output.ts';
import { findMisspelledAttributes } from './find-misspelled-attributes.ts';
import { findUnresolvedTypes } from './find-unresolved-types.ts';
import type { ModuleTypeScope } from './find-unresolved-types.ts';
import { readInputExamples } from './read-input-examples.ts';
import { readOptIns } from './read-opt-ins.ts';
import type { ToolOptIns } from './read-opt-ins.ts';
import type { ParseProblem } from './tokenizer.ts';
import type { PowerShellDocument, PsAttribute, PsClass, PsEnum, PsParameter } from './reader.ts';

export interface DescribeCommandInput {
  document: PowerShellDocument;
  path: string;
  sourceKind: 'script' | 'ps-module';
  /** The script's base name or the function's name. */
  originalName: string;
  /** `the script` or `the function Get-Widget`, for messages. */
  what: string;
  line?: number;
  help: HelpSearch;
  parameters: readonly PsParameter[];
  /** A module function's `dynamicparam` parameters, as the engine declares them (read-engine-facts.ts). */
  dynamicParameters?: readonly PsParameter[];
  /** Compiled .NET enums the engine resolved for the parameters' types (read-engine-facts.ts). */
  engineEnums?: readonly PsEnum[];
  /** It has a `dynamicparam` block the engine did not run: its help may document what that declares. */
  undescribedDynamicParameters?: boolean;
  blockAttributes: readonly PsAttribute[];
  invocation: ToolInvocation;
  /** How to add help to this command, for the no-description hint. */
  helpHint: string;
  /** A module's classes in all its files, for an output type named by a string. */
  moduleClasses?: ReadonlyArray<{ definition: PsClass; path: string }>;
  /** A module function's module types (ModuleLoader.types); a script is judged by its file. */
  moduleTypes?: ModuleTypeScope;
}

export interface DescribedCommand {
  tool?: DiscoveredTool;
  diagnostics: Diagnostic[];
}

/** At most this many parse errors per file: past the first few they are mostly echoes. */
const MAX_PARSE_DIAGNOSTICS = 5;

export function createParseDiagnostics(
  path: string,
  errors: readonly ParseProblem[],
  what: string,
): Diagnostic[] {
  const diagnostics = errors
    .slice(0, MAX_PARSE_DIAGNOSTICS)
    .map((error) =>
      createDiagnostic(
        'error',
        'E_PARSE',
        `PowerShell cannot parse ${what}: ${error.message}.`,
        { path, line: error.line },
        "Fix the syntax; running the file once in pwsh shows PowerShell's own message.",
      ),
    );
  if (errors.length > MAX_PARSE_DIAGNOSTICS) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_PARSE',
        `${errors.length - MAX_PARSE_DIAGNOSTICS} more syntax problems in ${what} are not listed.`,
        { path },
      ),
    );
  }
  return diagnostics;
}

function describeMissingHelp(input: DescribeCommandInput): Diagnostic {
  const rejection = input.help.rejections[0];
  const help = input.help.help;
  let message: string;
  let line = input.line;
  let path = input.path;
  if (help?.file !== undefined) {
    message = `${capitalize(input.what)} has no description: its external help in ${help.file} has neither a synopsis nor a description.`;
    line = help.lines.start;
    path = help.file;
  } else if (help !== undefined) {
    message = `${capitalize(input.what)} has no description: its comment-based help has neither .SYNOPSIS nor .DESCRIPTION.`;
    line = help.lines.start;
  } else if (rejection !== undefined) {
    message = `${capitalize(input.what)} has no description: PowerShell ignores the help block at line ${rejection.line} because ${rejection.reason}.`;
    line = rejection.line;
  } else {
    message = `${capitalize(input.what)} has no description: no comment-based help with .SYNOPSIS or .DESCRIPTION was found.`;
  }
  const files = input.help.externalHelpFiles ?? [];
  if (help === undefined && files.length > 0)
    message += ` Its external help (${files.join(', ')}) has no entry for ${input.originalName}.`;
  return createDiagnostic(
    'error',
    'E_NO_DESCRIPTION',
    message,
    { path, ...(line === undefined ? {} : { line }) },
    help === undefined && rejection?.suggestion !== undefined
      ? `Did you mean ${rejection.suggestion}? Get-Help ignores the whole block while one keyword in it is unknown.`
      : input.helpHint,
  );
}

/**
 * Turns one script or function into a tool, or into the diagnostics that say why it is
 * refused. Every problem is reported, not only the first, so one pass fixes them all.
 */
export function describeCommand(input: DescribeCommandInput): DescribedCommand {
  const diagnostics: Diagnostic[] = [];
  const where = { path: input.path, ...(input.line === undefined ? {} : { line: input.line }) };

  let name: string | undefined;
  let renamed: Diagnostic | undefined;
  try {
    const normalized = normalizeToolName(input.originalName);
    name = normalized.name;
    if (normalized.changed) {
      renamed = createDiagnostic(
        'info',
        'I_RENAMED',
        `The tool from ${input.what} is named ${name}, not ${input.originalName}: ${normalized.changes.join('; ')} (tool names are plain identifiers).`,
        where,
      );
    }
  } catch (error) {
    if (!isToolpackError(error)) throw error;
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_TOOL_NAME',
        `${capitalize(input.what)} cannot become a tool: ${error.message}`,
        where,
        error.hint,
      ),
    );
  }

  const help = input.help.help;
  // External help: its diagnostics point into the XML file, whose lines `help.lines` are.
  const helpPath = help?.file ?? input.path;
  const description = joinHelpDescription(help?.synopsis, help?.description);
  if (description === '') diagnostics.push(describeMissingHelp(input));
  else {
    // Help was found elsewhere: a block left out for a misspelled keyword would go unnoticed.
    for (const rejection of input.help.rejections) {
      if (rejection.suggestion === undefined) continue;
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_MISSPELLED_KEYWORD',
          `Get-Help ignores the comment block at line ${rejection.line} of ${input.what}: ${rejection.reason}.`,
          { path: input.path, line: rejection.line },
          `Did you mean ${rejection.suggestion}? Correct the keyword.`,
        ),
      );
    }
  }

  const parameters = [...input.parameters, ...(input.dynamicParameters ?? [])];
  if (help !== undefined && input.undescribedDynamicParameters !== true) {
    // Help may document the common parameters the engine adds (-WhatIf on a ShouldProcess function).
    const declared = new Set(
      [...parameters.map((parameter) => parameter.name), ...listCommonParameters(input)].map(
        (name) => name.toLowerCase(),
      ),
    );
    for (const documented of Object.keys(help.parameters)) {
      if (declared.has(documented)) continue;
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_UNKNOWN_PARAMETER_HELP',
          `The help of ${input.what} documents a parameter ${JSON.stringify(documented)} that the param block does not declare.`,
          { path: helpPath, line: help.lines.parameters[documented] ?? help.lines.start },
          help.file === undefined
            ? 'Fix the name after .PARAMETER or remove the section.'
            : "Fix the parameter's name in the help file or remove its entry.",
        ),
      );
    }
  }

  // Get-Help reads the comments next to parameters only along with comment-based help (and
  // dynamic parameters have no place in the file for a comment).
  const comments =
    help?.file === undefined ? findParameterComments(input.document, input.parameters) : [];
  const descriptions = parameters.map(
    (parameter, index) => help?.parameters[parameter.name.toLowerCase()] || comments[index] || '',
  );
  diagnostics.push(
    ...findMisspelledAttributes({
      path: input.path,
      what: input.what,
      parameters,
      blockAttributes: input.blockAttributes,
    }),
  );
  const converted = convertParameters({
    path: input.path,
    what: input.what,
    parameters,
    blockAttributes: input.blockAttributes,
    descriptions,
    // A module's functions resolve the module's own enums (its PowerShell `enum`s last, so they
    // win), and the compiled ones the engine resolved; a script cannot name its own
    // (PowerShell: "Unable to find type"), so its parameter stays a string.
    ...(input.sourceKind === 'ps-module'
      ? { enums: [...(input.engineEnums ?? []), ...input.document.enums] }
      : {}),
  });
  const unresolved = findUnresolvedTypes({
    path: input.path,
    what: input.what,
    document: input.document,
    parameters,
    ...(input.moduleTypes === undefined ? {} : { module: input.moduleTypes }),
  });
  diagnostics.push(...unresolved.diagnostics);
  // A type that names nothing is not sent as a string either: its error says it all.
  const unresolvedLines = new Set(unresolved.diagnostics.map((d) => d.line));
  diagnostics.push(
    ...converted.diagnostics
      .filter((d) => !(d.code === 'I_PARAMETER_AS_STRING' && unresolvedLines.has(d.line)))
      .map((diagnostic) =>
        help?.file !== undefined && diagnostic.code === 'E_PARAMETER_NO_DESCRIPTION'
          ? {
              ...diagnostic,
              message: `${diagnostic.message} Its help comes from ${help.file}, which does not describe it (with external help, Get-Help ignores comments next to parameters).`,
            }
          : diagnostic,
      ),
  );

  let annotations: DiscoveredTool['annotations'];
  let optIns: ToolOptIns = {};
  if (help?.notes !== undefined) {
    const hints = parseHints(help.notes, {
      path: helpPath,
      ...(help.lines.notes === undefined ? {} : { line: help.lines.notes }),
    });
    diagnostics.push(...hints.diagnostics);
    if (Object.keys(hints.annotations).length > 0) annotations = hints.annotations;
    const read = readOptIns(help.notes, {
      path: helpPath,
      ...(help.lines.notes === undefined ? {} : { line: help.lines.notes }),
    });
    diagnostics.push(...read.diagnostics);
    optIns = read.optIns;
  }

  for (const problem of findParameterProblems(converted.parameters)) {
    diagnostics.push(
      createDiagnostic('error', 'E_PARAMETERS', `${capitalize(input.what)}: ${problem}.`, where),
    );
  }

  // Parameters without descriptions alone refuse the tool only without lenient help, which
  // discovery decides after the cache (lenient-help.ts): the tool is built and marked.
  const helpGaps = diagnostics.filter((d) => d.code === 'E_PARAMETER_NO_DESCRIPTION');
  if (hasErrors(diagnostics.filter((d) => !helpGaps.includes(d))) || name === undefined)
    return { diagnostics };
  let inputSchema: DiscoveredTool['inputSchema'];
  try {
    inputSchema = buildInputSchema(converted.parameters);
    if (converted.parameterSets !== undefined)
      inputSchema = addParameterSetBranches(inputSchema, converted.parameterSets);
  } catch (error) {
    if (!isToolpackError(error)) throw error;
    diagnostics.push(createDiagnostic('error', error.code, error.message, where, error.hint));
    return { diagnostics };
  }
  const tool: DiscoveredTool = {
    name,
    originalName: input.originalName,
    description,
    inputSchema,
    source: {
      kind: input.sourceKind,
      path: input.path,
      ...(input.line === undefined ? {} : { line: input.line }),
    },
    invocation: input.invocation,
  };
  if (annotations !== undefined) tool.annotations = annotations;
  if (converted.parameterSets !== undefined) tool.parameterSets = converted.parameterSets;
  if (converted.credentialParameters !== undefined)
    tool.credentialParameters = converted.credentialParameters;
  const output = describeOutput({
    path: input.path,
    what: input.what,
    sourceKind: input.sourceKind,
    blockAttributes: input.blockAttributes,
    classes: input.document.classes,
    otherClasses: (input.moduleClasses ?? [])
      .filter(({ path }) => path !== input.path)
      .map(({ definition }) => definition),
    ...(help === undefined ? {} : { help }),
  });
  diagnostics.push(...output.diagnostics);
  if (hasErrors(output.diagnostics)) return { diagnostics };
  if (output.outputSchema !== undefined) tool.outputSchema = output.outputSchema;
  const examples = readInputExamples({
    path: helpPath,
    what: input.what,
    sourceKind: input.sourceKind,
    commandName: input.originalName,
    ...(help === undefined ? {} : { help }),
    parameters,
    blockAttributes: input.blockAttributes,
    inputSchema,
  });
  diagnostics.push(...examples.diagnostics);
  if (examples.inputExamples.length > 0) tool.inputExamples = examples.inputExamples;
  Object.assign(tool, optIns);
  // Only a tool that exists has a name worth explaining.
  if (renamed !== undefined) diagnostics.unshift(renamed);
  return { tool: helpGaps.length > 0 ? markHelpGaps(tool, helpGaps) : tool, diagnostics };
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
