import path from 'node:path';
import { createDiagnostic, hasErrors, isPlainObject } from '@toolpack/core';
import type { Diagnostic, DiscoveredTool, ObjectJsonSchema } from '@toolpack/core';
import type { SourceResult } from '../../types.ts';
import { checkObjectSchema } from './check-object-schema.ts';
import { type ToolFolderScripts, checkToolScript } from './check-tool-script.ts';
import { describeValue } from './metadata-report.ts';
import { pickMetadataKey } from './pick-metadata-key.ts';
import { readToolFolderName } from './read-tool-folder-name.ts';
import { reportUnknownKeys } from './report-unknown-keys.ts';
import { readAnnotations } from './read-annotations.ts';
import { readExamples } from './read-examples.ts';
import { readOptIns } from './read-opt-ins.ts';
import { readTimeout } from './read-timeout.ts';
import { parseLocatedDocument } from './yaml-document.ts';

/**
 * The metadata file names, in the order one is chosen when a folder has several: dotbot's
 * server reads metadata.json, so it wins over a metadata.yaml beside it.
 */
export const METADATA_FILE_NAMES = ['metadata.json', 'metadata.yaml', 'metadata.yml'] as const;

export interface DescribeToolFolderInput extends ToolFolderScripts {
  metadataPath: string;
  /** The metadata file's text. */
  metadata: string;
}

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
 * examples:                        # optional worked calls (dotbot's `input` reads as arguments)
 *   - description: Tell the team the build is green
 *     arguments: { channel: team, text: Build is green }
 * longRunning: true                # optional: calls take long (tasks for clients that have them)
 * progressResetsTimeout: true      # optional: each progress report restarts the timeout
 * ```
 *
 * `additionalProperties: false` and `required: []` are added to the input schema when the
 * author set none, and the description is kept as written, as dotbot's own tools/list does.
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

  reportUnknownKeys(metadata, { metadataFile, report, lineOf });

  const { rawName, name, renamed } = readToolFolderName(metadata, {
    metadataFile,
    metadataPath,
    folderName,
    report,
    lineOf,
  });

  let description: string | undefined;
  if (typeof metadata.description === 'string' && metadata.description.trim() !== '') {
    // As written, trailing newline included: dotbot's tools/list sends it so (a YAML `|`
    // block or a JSON "...\n"), and a client comparing the two servers should see no change.
    description = metadata.description;
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

  const inputKey = pickMetadataKey(metadata, 'inputSchema', 'input_schema', report, lineOf);
  const inputSchema =
    inputKey === undefined
      ? ({
          type: 'object',
          properties: {},
          required: [],
          additionalProperties: false,
        } satisfies ObjectJsonSchema)
      : checkObjectSchema({
          value: metadata[inputKey],
          key: inputKey,
          input: true,
          report,
          lineOf,
        });
  const outputKey = pickMetadataKey(metadata, 'outputSchema', 'output_schema', report, lineOf);
  const outputSchema =
    outputKey === undefined
      ? undefined
      : checkObjectSchema({
          value: metadata[outputKey],
          key: outputKey,
          input: false,
          report,
          lineOf,
        });

  const annotations = readAnnotations(metadata.annotations, metadataPath, diagnostics, lineOf);
  const timeoutMs = readTimeout(metadata, report, lineOf);
  const optIns = readOptIns(metadata, report, lineOf);
  const inputExamples = readExamples(metadata.examples, inputSchema, report, lineOf);

  const invocation = await checkToolScript(input, rawName, name, diagnostics);

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
  if (inputExamples.length > 0) tool.inputExamples = inputExamples;
  Object.assign(tool, optIns);
  return { tools: [tool], diagnostics };
}
