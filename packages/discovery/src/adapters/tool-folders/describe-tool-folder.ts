import path from 'node:path';
import {
  createDiagnostic,
  findClosestName,
  findSchemaProblems,
  hasErrors,
  isToolpackError,
  normalizeToolName,
  parseHints,
  toInvokeFunctionName,
} from '@toolpack/core';
import type {
  Diagnostic,
  DiscoveredTool,
  JsonSchema,
  ObjectJsonSchema,
  ToolAnnotations,
  ToolInvocation,
} from '@toolpack/core';
import { findPowerShellFunctions } from '../../powershell-reader/index.ts';
import type { SourceResult } from '../../types.ts';
import { parseLocatedDocument } from './yaml-document.ts';
import type { LocatedDocument } from './yaml-document.ts';

/** The `script.<ext>` files a tool folder may hold (exactly one of them). */
export const TOOL_FOLDER_SCRIPT_EXTENSIONS = ['ps1', 'sh', 'py', 'js', 'mjs', 'ts'] as const;

/** The metadata file names, in the order one is chosen when a folder has several. */
export const METADATA_FILE_NAMES = ['metadata.yaml', 'metadata.yml', 'metadata.json'] as const;

export interface DescribeToolFolderInput {
  /** The tool folder (`.../tools/send-notification`). */
  folder: string;
  metadataPath: string;
  /** The metadata file's text. */
  metadata: string;
  /** The folder's one script, when it has exactly one. */
  scriptPath?: string;
  /** That script's text (needed for `.ps1`, to check the function it defines). */
  script?: string;
  /** The names of every `script.<ext>` file in the folder. */
  scripts: readonly string[];
}

const KNOWN_KEYS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'input_schema',
  'outputSchema',
  'output_schema',
  'annotations',
  'timeout',
  'timeoutMs',
  'timeout_ms',
];
// Keys dotbot's own metadata files carry that mean nothing to a tool list.
const IGNORED_KEYS = new Set(['version', 'category', 'examples', 'tags', 'author', 'notes']);

/**
 * Describes one dotbot-style tool folder: `metadata.yaml` (or `.yml`/`.json`) plus one
 * `script.<ext>`.
 *
 * ```yaml
 * name: send_notification          # snake_case; the folder is send-notification
 * title: Send notification         # optional
 * description: Sends a notification to a channel
 * inputSchema:                     # or input_schema; JSON Schema with type: object
 *   type: object
 *   properties:
 *     channel: { type: string, description: Where to send it }
 *   required: [channel]
 * outputSchema: { type: object }   # optional, or output_schema
 * annotations: { readOnlyHint: false, destructiveHint: false }   # optional MCP hints
 * timeout: 60                      # optional: seconds, or 500ms / 30s / 2m; timeoutMs in ms
 * ```
 *
 * `additionalProperties: false` is added to the input schema when the author set none.
 * Checked at load time, each with file and line: valid YAML, a name (taken from the folder
 * when missing), the folder named after it (`_` -> `-`, a warning), a description, valid
 * JSON Schema, exactly one script, and for `.ps1` that the script defines
 * `Invoke-<PascalCase(name)>` — dotbot only finds that out when the tool is called.
 * Any error refuses the tool. Pure apart from parsing PowerShell: the same input always
 * gives the same JSON-serialisable result.
 */
export async function describeToolFolder(input: DescribeToolFolderInput): Promise<SourceResult> {
  const { folder, metadataPath } = input;
  const diagnostics: Diagnostic[] = [];
  const document = parseLocatedDocument(input.metadata, metadataPath);
  if (document.diagnostics.length > 0) return { tools: [], diagnostics: document.diagnostics };
  const metadata = document.value;
  const lineOf = (...segments: (string | number)[]): number => document.lineOf(segments) ?? 1;
  const report = (
    severity: Diagnostic['severity'],
    code: Diagnostic['code'],
    message: string,
    line: number | undefined,
    hint?: string,
    where = metadataPath,
  ): void => {
    diagnostics.push(
      createDiagnostic(
        severity,
        code,
        message,
        line === undefined ? { path: where } : { path: where, line },
        hint,
      ),
    );
  };
  const metadataFile = path.basename(metadataPath);
  const folderName = path.basename(folder);

  if (!isPlainObject(metadata)) {
    report(
      'error',
      'E_METADATA_SHAPE',
      `${metadataFile} must be a mapping with name, description and inputSchema.`,
      1,
      'Start the file with name: and description: lines.',
    );
    return { tools: [], diagnostics };
  }

  for (const key of Object.keys(metadata)) {
    if (KNOWN_KEYS.includes(key) || IGNORED_KEYS.has(key)) continue;
    const meant = findMeantKey(key);
    if (meant !== undefined) {
      report(
        'warning',
        'W_UNKNOWN_KEY',
        `${metadataFile} has the key ${JSON.stringify(key)}, which is ignored.`,
        lineOf(key),
        `Did you mean ${meant}?`,
      );
    } else {
      report(
        'info',
        'I_UNKNOWN_KEY',
        `${metadataFile} has the key ${JSON.stringify(key)}, which Toolpack ignores.`,
        lineOf(key),
      );
    }
  }

  // Name: dotbot requires one; a missing name is taken from the folder rather than refused.
  let rawName: string | undefined;
  if (metadata.name === undefined || metadata.name === null) {
    rawName = folderName.replace(/-/g, '_');
    report(
      'info',
      'I_NAME_FROM_FOLDER',
      `${metadataFile} has no name; the tool is named ${JSON.stringify(rawName)} after its folder.`,
      1,
      `Add name: ${rawName}.`,
    );
  } else if (typeof metadata.name !== 'string') {
    report(
      'error',
      'E_METADATA_FIELD',
      `name must be a string, not ${describeValue(metadata.name)}.`,
      lineOf('name'),
      'Write the name in snake_case, such as name: send_notification.',
    );
  } else {
    rawName = metadata.name;
  }
  let name: string | undefined;
  let renamed: Diagnostic | undefined;
  if (rawName !== undefined) {
    try {
      const normalized = normalizeToolName(rawName);
      name = normalized.name;
      if (normalized.changed) {
        renamed = createDiagnostic(
          'info',
          'I_RENAMED',
          `The tool ${JSON.stringify(rawName)} is served as ${JSON.stringify(name)} (${normalized.changes.join('; ')}).`,
          { path: metadataPath, line: lineOf('name') },
          `Write name: ${name} to keep the name as it is.`,
        );
      }
    } catch (error) {
      if (!isToolpackError(error)) throw error;
      report('error', 'E_TOOL_NAME', error.message, lineOf('name'), error.hint);
    }
  }
  if (name !== undefined) {
    const expectedFolder = name.replace(/_/g, '-');
    if (folderName !== expectedFolder) {
      report(
        'warning',
        'W_FOLDER_NAME',
        `The folder ${JSON.stringify(folderName)} does not match the tool name ${JSON.stringify(name)}: dotbot's convention is the folder ${JSON.stringify(expectedFolder)}.`,
        lineOf('name'),
        `Rename the folder to ${expectedFolder}, or the tool to name: ${folderName.replace(/-/g, '_')}.`,
      );
    }
  }

  let description: string | undefined;
  if (typeof metadata.description === 'string' && metadata.description.trim() !== '') {
    description = metadata.description.trim();
  } else {
    const missing =
      metadata.description === undefined ||
      metadata.description === null ||
      metadata.description === '';
    report(
      'error',
      'E_NO_DESCRIPTION',
      missing
        ? `${metadataFile} has no description: clients show it to the model to decide when to call the tool.`
        : `description must be text, not ${describeValue(metadata.description)}.`,
      missing && metadata.description === undefined ? 1 : lineOf('description'),
      'Add description: followed by one sentence saying what the tool does.',
    );
  }

  let title: string | undefined;
  if (metadata.title !== undefined && metadata.title !== null) {
    if (typeof metadata.title === 'string') title = metadata.title;
    else
      report(
        'error',
        'E_METADATA_FIELD',
        `title must be text, not ${describeValue(metadata.title)}.`,
        lineOf('title'),
      );
  }

  const inputKey = pickKey(metadata, 'inputSchema', 'input_schema', report, lineOf);
  const inputSchema =
    inputKey === undefined
      ? ({ type: 'object', properties: {}, additionalProperties: false } satisfies ObjectJsonSchema)
      : checkObjectSchema({
          value: metadata[inputKey],
          key: inputKey,
          input: true,
          document,
          report,
          lineOf,
        });
  const outputKey = pickKey(metadata, 'outputSchema', 'output_schema', report, lineOf);
  const outputSchema =
    outputKey === undefined
      ? undefined
      : checkObjectSchema({
          value: metadata[outputKey],
          key: outputKey,
          input: false,
          document,
          report,
          lineOf,
        });

  const annotations = readAnnotations(metadata.annotations, metadataPath, diagnostics, lineOf);
  const timeoutMs = readTimeout(metadata, report, lineOf);

  const invocation = await checkScript(input, rawName, name, diagnostics);

  if (
    hasErrors(diagnostics) ||
    name === undefined ||
    description === undefined ||
    inputSchema === undefined ||
    invocation === undefined
  ) {
    return { tools: [], diagnostics };
  }
  if (renamed !== undefined) diagnostics.push(renamed);
  const tool: DiscoveredTool = {
    name,
    description,
    inputSchema,
    source: { kind: 'tool-folder', path: metadataPath, line: 1 },
    invocation,
    originalName: rawName ?? name,
  };
  if (title !== undefined) tool.title = title;
  if (outputSchema !== undefined) tool.outputSchema = outputSchema;
  if (annotations !== undefined && Object.keys(annotations).length > 0)
    tool.annotations = annotations;
  if (timeoutMs !== undefined) tool.timeoutMs = timeoutMs;
  return { tools: [tool], diagnostics };
}

type Report = (
  severity: Diagnostic['severity'],
  code: Diagnostic['code'],
  message: string,
  line: number | undefined,
  hint?: string,
  where?: string,
) => void;
type LineOf = (...segments: (string | number)[]) => number;

/** Which of two spellings of a key the file uses (warning when it uses both). */
function pickKey(
  metadata: Record<string, unknown>,
  preferred: string,
  alternative: string,
  report: Report,
  lineOf: LineOf,
): string | undefined {
  const hasPreferred = metadata[preferred] !== undefined && metadata[preferred] !== null;
  const hasAlternative = metadata[alternative] !== undefined && metadata[alternative] !== null;
  if (hasPreferred && hasAlternative) {
    report(
      'warning',
      'W_DUPLICATE_KEY',
      `Both ${preferred} and ${alternative} are set; ${alternative} is ignored.`,
      lineOf(alternative),
      `Keep only ${preferred}.`,
    );
  }
  if (hasPreferred) return preferred;
  return hasAlternative ? alternative : undefined;
}

interface CheckSchemaOptions {
  value: unknown;
  key: string;
  /** The input schema gets `additionalProperties: false` and its `required` is checked. */
  input: boolean;
  document: LocatedDocument;
  report: Report;
  lineOf: LineOf;
}

function checkObjectSchema(options: CheckSchemaOptions): ObjectJsonSchema | undefined {
  const { value, key, input, report, lineOf } = options;
  const code = input ? 'E_INPUT_SCHEMA' : 'E_OUTPUT_SCHEMA';
  if (!isPlainObject(value)) {
    report(
      'error',
      code,
      `${key} must be a JSON Schema object, not ${describeValue(value)}.`,
      lineOf(key),
      `Write ${key}: with type: object and properties: below it.`,
    );
    return undefined;
  }
  const schema = structuredClone(value) as JsonSchema;
  let ok = true;
  if (schema.type !== 'object') {
    report(
      'error',
      code,
      schema.type === undefined
        ? `${key} has no type: a tool's ${input ? 'arguments' : 'result'} must be an object.`
        : `${key} has type ${JSON.stringify(schema.type)}, but a tool's ${input ? 'arguments' : 'result'} must be an object.`,
      lineOf(key, 'type'),
      `Add type: object under ${key}.`,
    );
    ok = false;
  }
  // dotbot turns a lone or empty `required` into a list before serving it; do the same.
  if (schema.required === null) {
    delete schema.required;
  } else if (typeof schema.required === 'string') {
    report(
      'warning',
      'W_SCHEMA_REQUIRED',
      `${key}.required should be a list; read as [${schema.required}].`,
      lineOf(key, 'required'),
      `Write required: [${schema.required}].`,
    );
    schema.required = [schema.required];
  }
  // Ajv reports one mistake several ways (`type: integr` fails enum, array and anyOf): keep
  // the first report per place.
  const reported = new Set<string>();
  for (const problem of findSchemaProblems(schema)) {
    const match = /^(\/\S*) (.*)$/.exec(problem);
    const pointer = match?.[1] ?? '';
    if (reported.has(pointer)) continue;
    reported.add(pointer);
    const segments =
      pointer === '/' || pointer === ''
        ? []
        : pointer.split('/').slice(1).map(decodePointerSegment);
    const isType = segments[segments.length - 1] === 'type';
    const detail =
      match === null
        ? problem
        : isType
          ? `${pointer} is not a JSON Schema type`
          : `${pointer} ${match[2] ?? ''}`;
    report(
      'error',
      code,
      `${key} is not valid JSON Schema: ${detail}.`,
      lineOf(key, ...segments),
      isType
        ? 'Use one of string, integer, number, boolean, array, object or null.'
        : 'Check the schema against JSON Schema 2020-12.',
    );
    ok = false;
  }
  if (!ok) return undefined;
  const objectSchema = schema as ObjectJsonSchema;
  if (input) {
    objectSchema.additionalProperties ??= false;
    const properties = isPlainObject(objectSchema.properties) ? objectSchema.properties : {};
    const undeclared = (objectSchema.required ?? []).filter((name) => !(name in properties));
    if (undeclared.length > 0 && objectSchema.additionalProperties === false) {
      report(
        'error',
        code,
        `${key}.required lists ${undeclared.map((n) => JSON.stringify(n)).join(', ')}, which ${undeclared.length === 1 ? 'is' : 'are'} not under properties: no call could pass.`,
        lineOf(key, 'required'),
        'Declare each required argument under properties, or remove it from required.',
      );
      return undefined;
    }
  }
  return objectSchema;
}

function readAnnotations(
  value: unknown,
  metadataPath: string,
  diagnostics: Diagnostic[],
  lineOf: LineOf,
): ToolAnnotations | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_METADATA_FIELD',
        `annotations must be a mapping of hints, not ${describeValue(value)}.`,
        { path: metadataPath, line: lineOf('annotations') },
        'Write annotations: with readOnlyHint: true (or destructiveHint, idempotentHint, openWorldHint) below it.',
      ),
    );
    return undefined;
  }
  const annotations: ToolAnnotations = {};
  const lines = new Map<string, number>();
  for (const [key, hintValue] of Object.entries(value)) {
    const line = lineOf('annotations', key);
    if (key === 'title') {
      if (typeof hintValue === 'string') annotations.title = hintValue;
      else
        diagnostics.push(
          createDiagnostic('error', 'E_METADATA_FIELD', `annotations.title must be text.`, {
            path: metadataPath,
            line,
          }),
        );
      continue;
    }
    // A hint reads as on a `.NOTES` line: a boolean, 0/1, a description (declared) or nothing
    // (`readOnlyHint:` alone, declared). A list or a mapping says nothing a reader can trust.
    if (typeof hintValue === 'object' && hintValue !== null) {
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_HINT_VALUE',
          `annotations.${key} is ${describeValue(hintValue)}; a hint is true, false or a description.`,
          { path: metadataPath, line },
          `Write ${key}: true (or false), or ${key}: followed by why it holds.`,
        ),
      );
      continue;
    }
    const text = hintValue === null || hintValue === undefined ? '' : String(hintValue);
    const parsed = parseHints([`${key}: ${text}`], { path: metadataPath, line });
    diagnostics.push(...parsed.diagnostics);
    if (parsed.otherLines.length > 0) {
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_UNKNOWN_HINT',
          `Unknown annotation ${JSON.stringify(key)} is ignored.`,
          { path: metadataPath, line },
          'Use readOnlyHint, destructiveHint, idempotentHint, openWorldHint or title.',
        ),
      );
    }
    for (const hint of Object.keys(parsed.annotations)) lines.set(hint, line);
    Object.assign(annotations, parsed.annotations);
  }
  if (annotations.readOnlyHint === true && annotations.destructiveHint === true) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_CONFLICTING_HINTS',
        'readOnlyHint and destructiveHint are both true: a read-only tool cannot destroy anything.',
        { path: metadataPath, line: lines.get('destructiveHint') ?? lineOf('annotations') },
        'Keep readOnlyHint for a tool that changes nothing, destructiveHint for one that deletes or overwrites.',
      ),
    );
  }
  return annotations;
}

function readTimeout(
  metadata: Record<string, unknown>,
  report: Report,
  lineOf: LineOf,
): number | undefined {
  const msKey =
    metadata.timeoutMs !== undefined
      ? 'timeoutMs'
      : metadata.timeout_ms !== undefined
        ? 'timeout_ms'
        : undefined;
  if (msKey !== undefined && metadata.timeout !== undefined) {
    report(
      'warning',
      'W_DUPLICATE_KEY',
      `Both timeout and ${msKey} are set; timeout is ignored.`,
      lineOf('timeout'),
      `Keep only ${msKey}.`,
    );
  }
  const key = msKey ?? (metadata.timeout !== undefined ? 'timeout' : undefined);
  if (key === undefined) return undefined;
  const value = metadata[key];
  const ms = key === 'timeout' ? parseDuration(value, 1000) : parseDuration(value, 1);
  if (ms === undefined) {
    report(
      'error',
      'E_METADATA_FIELD',
      `${key} must be a positive ${key === 'timeout' ? 'number of seconds or a duration such as 500ms, 30s or 2m' : 'number of milliseconds'}, not ${describeValue(value)}.`,
      lineOf(key),
      key === 'timeout'
        ? 'Write timeout: 60 for a minute.'
        : 'Write timeoutMs: 60000 for a minute.',
    );
  }
  return ms;
}

/** `60` (times `unitMs`), `"500ms"`, `"30s"`, `"2m"` -> whole milliseconds; undefined when invalid. */
function parseDuration(value: unknown, unitMs: number): number | undefined {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value * unitMs;
  else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value);
    if (match !== null) {
      const unit = (match[2] ?? '').toLowerCase();
      const scale =
        unit === 'ms'
          ? 1
          : unit === 's'
            ? 1000
            : unit === 'm'
              ? 60_000
              : unit === 'h'
                ? 3_600_000
                : unitMs;
      ms = Number(match[1]) * scale;
    }
  }
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return undefined;
  return Math.max(1, Math.round(ms));
}

/** Checks the folder's script and decides how to run it; undefined when it cannot be run. */
async function checkScript(
  input: DescribeToolFolderInput,
  rawName: string | undefined,
  name: string | undefined,
  diagnostics: Diagnostic[],
): Promise<ToolInvocation | undefined> {
  const { folder, scripts } = input;
  const folderName = path.basename(folder);
  if (scripts.length === 0) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_NO_SCRIPT',
        `The tool folder ${folderName} has no script.`,
        { path: folder },
        `Add one script named script.${TOOL_FOLDER_SCRIPT_EXTENSIONS.join(', script.')}.`,
      ),
    );
    return undefined;
  }
  if (scripts.length > 1) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_SEVERAL_SCRIPTS',
        `The tool folder ${folderName} has ${scripts.length} scripts (${[...scripts].sort().join(', ')}); a tool runs exactly one.`,
        { path: folder },
        'Keep one script.<ext> and move or rename the others.',
      ),
    );
    return undefined;
  }
  const scriptName = scripts[0] ?? '';
  const scriptPath = input.scriptPath ?? path.join(folder, scriptName);
  const extension = path.extname(scriptName).toLowerCase();
  if (extension !== '.ps1') return { runner: 'process', scriptPath, extension };
  if (name === undefined) return undefined;

  const script = input.script ?? '';
  let functions: Array<{ name: string; line: number }>;
  try {
    functions = await findPowerShellFunctions(script);
  } catch (error) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_POWERSHELL_PARSE',
        `${scriptName} could not be parsed: ${(error as Error).message}`,
        { path: scriptPath },
      ),
    );
    return undefined;
  }
  const expected = toInvokeFunctionName(name);
  // PowerShell matches function names ignoring case; dotbot builds the name by capitalising
  // each `_` part, which for odd names (`get-2fa`) differs from ours, so both are accepted.
  const accepted = new Set(
    [
      expected,
      ...[name, rawName].flatMap((n) =>
        n === undefined ? [] : [toInvokeFunctionName(n), toDotbotFunctionName(n)],
      ),
    ].map((n) => n.toLowerCase()),
  );
  const found = functions.find((fn) => accepted.has(fn.name.toLowerCase()));
  if (found !== undefined)
    return { runner: 'pwsh', mode: 'tool-folder', scriptPath, functionName: found.name };

  const invokeFunctions = functions.filter((fn) => /^invoke-/i.test(fn.name));
  const culprit =
    invokeFunctions.length === 1
      ? invokeFunctions[0]
      : functions.length === 1
        ? functions[0]
        : undefined;
  const list = functions.map((fn) => `${fn.name} (line ${fn.line})`).join(', ');
  diagnostics.push(
    createDiagnostic(
      'error',
      'E_FUNCTION_NAME',
      `${scriptName} does not define ${expected}, the function called for the tool ${name}; ${functions.length === 0 ? 'it defines no functions' : `it defines ${list}`}.`,
      culprit === undefined ? { path: scriptPath } : { path: scriptPath, line: culprit.line },
      culprit !== undefined && /^invoke-/i.test(culprit.name)
        ? `Rename the function ${culprit.name} to ${expected}.`
        : `Define function ${expected} { param([hashtable]$Arguments) ... } in ${scriptName}; rename the function to ${expected} if it has another name.`,
    ),
  );
  return undefined;
}

/** dotbot's own rule: `get_current_datetime` -> `Invoke-GetCurrentDatetime`. */
function toDotbotFunctionName(name: string): string {
  return `Invoke-${name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;
}

function findMeantKey(key: string): string | undefined {
  // Short keys are too alike (`name`, `title`) to guess between.
  return findClosestName(
    key,
    KNOWN_KEYS.filter((known) => known.length > 3),
  );
}

function decodePointerSegment(segment: string): string | number {
  const text = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(text) ? Number(text) : text;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
