import {
  buildInputSchema,
  createDiagnostic,
  hasErrors,
  isToolpackError,
  normalizeToolName,
  validateArguments,
} from '@toolpack/core';
import type {
  Diagnostic,
  DiscoveredTool,
  ObjectJsonSchema,
  ToolInputExample,
} from '@toolpack/core';
import type { SourceResult } from '../../types.ts';
import type {
  DeclarationDialect,
  DeclarationLine,
  DeclaredExample,
  DeclaredParameter,
} from './declaration-types.ts';
import { parseDeclarations } from './parse-declarations.ts';

export interface DescribeDeclaredScriptInput {
  path: string;
  /** The declaration text of the file, comment prefixes removed. */
  lines: readonly DeclarationLine[];
  dialect: DeclarationDialect;
  kind: 'script' | 'basic';
  /** Lower-case, with the dot: `.sh`, `.bas`. */
  extension: string;
  /** How a header line is written in this file, for hints: `# `, `// `, or empty for BASIC. */
  commentPrefix: string;
}

/** The file's name without folders or its last extension: `/a/list-files.sh` -> `list-files`. */
export function getBaseName(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

/** The lower-case extension with its dot (`.sh`), or '' when there is none. */
export function getExtension(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(dot).toLowerCase() : '';
}

/**
 * Turns a file's DESCRIPTION/PARAM declarations into a process-run tool named after the
 * file. Any error refuses the whole tool (a schema missing one bad parameter would accept
 * calls the script cannot handle); every problem is reported, not only the first.
 */
export function describeDeclaredScript(input: DescribeDeclaredScriptInput): SourceResult {
  const { path, dialect, kind, extension, commentPrefix } = input;
  const parsed = parseDeclarations(input.lines, { path, dialect });
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];

  if (!parsed.declaresTool) {
    diagnostics.push(
      createDiagnostic(
        'info',
        'I_NOT_A_TOOL',
        dialect === 'header'
          ? 'The script has no DESCRIPTION, PARAM or HINTS header comment, so it is not served as a tool.'
          : 'The BASIC script has no DESCRIPTION or PARAM line, so it is not served as a tool.',
        { path },
        `To serve it, start it with ${commentPrefix}DESCRIPTION "what it does" and one ${commentPrefix}PARAM line per argument.`,
      ),
    );
    return { tools: [], diagnostics };
  }

  const originalName = getBaseName(path);
  let name: string | undefined;
  let renamed: Diagnostic | undefined;
  try {
    const normalized = normalizeToolName(originalName);
    name = normalized.name;
    if (normalized.changed) {
      renamed = createDiagnostic(
        'info',
        'I_RENAMED',
        `The tool ${JSON.stringify(originalName)} is served as ${JSON.stringify(name)} (${normalized.changes.join('; ')}).`,
        { path },
        `Rename the file to ${name}${extension} to keep the name as it is.`,
      );
    }
  } catch (error) {
    if (!isToolpackError(error)) throw error;
    diagnostics.push(createDiagnostic('error', 'E_TOOL_NAME', error.message, { path }, error.hint));
  }

  if (name === undefined || hasErrors(diagnostics) || parsed.description === undefined) {
    return { tools: [], diagnostics };
  }

  let inputSchema: DiscoveredTool['inputSchema'];
  let outputSchema: ObjectJsonSchema | undefined;
  try {
    inputSchema = buildInputSchema(parsed.parameters.map((parameter) => parameter.spec));
    outputSchema = buildOutputSchema(parsed.outputs);
  } catch (error) {
    if (!isToolpackError(error)) throw error;
    diagnostics.push(
      createDiagnostic(
        'error',
        error.code,
        error.message,
        { path, line: parsed.firstLine },
        error.hint,
      ),
    );
    return { tools: [], diagnostics };
  }
  const inputExamples = selectExamples(parsed.examples, inputSchema, path, diagnostics);

  // Only a tool that is served reports its new name; a refused one has its errors to show.
  if (renamed !== undefined) diagnostics.push(renamed);
  const line = parsed.descriptionLine ?? parsed.firstLine;
  const tool: DiscoveredTool = {
    name,
    description: parsed.description,
    inputSchema,
    source: line === undefined ? { kind, path } : { kind, path, line },
    invocation: { runner: 'process', scriptPath: path, extension },
    originalName,
  };
  if (Object.keys(parsed.annotations).length > 0) tool.annotations = parsed.annotations;
  if (outputSchema !== undefined) tool.outputSchema = outputSchema;
  if (inputExamples.length > 0) tool.inputExamples = inputExamples;
  if (parsed.timeoutMs !== undefined) tool.timeoutMs = parsed.timeoutMs;
  if (parsed.longRunning === true) tool.longRunning = true;
  if (parsed.progressResetsTimeout === true) tool.progressResetsTimeout = true;
  return { tools: [tool], diagnostics };
}

/**
 * The OUTPUT lines as an output schema, or undefined when there are none. Unlike the input
 * schema it stays open: a script that prints a key more than it declares still answers.
 */
function buildOutputSchema(outputs: readonly DeclaredParameter[]): ObjectJsonSchema | undefined {
  if (outputs.length === 0) return undefined;
  const { additionalProperties: _open, ...schema } = buildInputSchema(
    outputs.map((output) => output.spec),
  );
  return schema;
}

/** The EXAMPLE lines whose arguments fit the input schema; each other one is reported and dropped. */
function selectExamples(
  examples: readonly DeclaredExample[],
  inputSchema: ObjectJsonSchema,
  path: string,
  diagnostics: Diagnostic[],
): ToolInputExample[] {
  const kept: ToolInputExample[] = [];
  for (const { example, line } of examples) {
    const validation = validateArguments(inputSchema, example.arguments);
    if (validation.valid) {
      kept.push(example);
      continue;
    }
    diagnostics.push(
      createDiagnostic(
        'warning',
        'W_EXAMPLE_IGNORED',
        `EXAMPLE arguments do not fit the tool's parameters (${validation.message}); the example is left out.`,
        { path, line },
        'Give each required PARAM a value of its declared type, and no name the PARAM lines do not declare.',
      ),
    );
  }
  return kept;
}
