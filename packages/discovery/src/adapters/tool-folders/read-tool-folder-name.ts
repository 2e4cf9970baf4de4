import { createDiagnostic, isToolpackError, normalizeToolName } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';
import { type LineOf, type Report, describeValue } from './metadata-report.ts';

export interface ToolFolderName {
  /** The name as the file (or, when it has none, the folder) gives it. */
  rawName: string | undefined;
  /** The served name; undefined when the name cannot be served. */
  name: string | undefined;
  /** Said only when the tool is served: the name was changed to fit MCP's rule. */
  renamed: Diagnostic | undefined;
}

/**
 * The tool's name: metadata's `name`, or its folder's when it has none (dotbot requires one;
 * a missing name is taken from the folder rather than refused), normalized for MCP, and the
 * folder checked against dotbot's convention (`send_notification` in `send-notification`).
 */
export function readToolFolderName(
  metadata: Record<string, unknown>,
  options: {
    metadataFile: string;
    metadataPath: string;
    folderName: string;
    report: Report;
    lineOf: LineOf;
  },
): ToolFolderName {
  const { metadataFile, metadataPath, folderName, report, lineOf } = options;
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
  return { rawName, name, renamed };
}
