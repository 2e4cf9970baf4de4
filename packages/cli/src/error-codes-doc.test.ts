import path from 'node:path';
import { ERROR_CODES, type ErrorExitClass, type ToolpackErrorCode } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { EXIT_OK, exitCodeForError } from './exit-codes.ts';

const DOC = path.resolve(import.meta.dirname, '..', '..', '..', 'docs', 'error-codes.md');

/** The exit column: the number the CLI derives for a thrown error, 0 for a note or warning. */
function describeExit(exitClass: ErrorExitClass): string {
  if (exitClass === 'none') return `${EXIT_OK} (never fails)`;
  const code = exitCodeForError(exitClass);
  return exitClass === 'bug' ? `${code} (a bug: report it)` : String(code);
}

function renderTable(prefix: string): string {
  const rows = (Object.keys(ERROR_CODES) as ToolpackErrorCode[])
    .filter((code) => code.startsWith(prefix))
    .sort()
    .map((code) => {
      const { meaning, exit } = ERROR_CODES[code];
      return `| \`${code}\` | ${meaning.replaceAll('|', '\\|')} | ${describeExit(exit)} |`;
    });
  return ['| Code | Meaning | Exit |', '| --- | --- | --- |', ...rows].join('\n');
}

// docs/error-codes.md is this text; `pnpm vitest run packages/cli/src/error-codes-doc.test.ts -u`
// rewrites it after the catalogue (packages/core/src/error-codes.ts) changes.
function renderDoc(): string {
  return `# Error codes

<!-- Generated from packages/core/src/error-codes.ts by packages/cli/src/error-codes-doc.test.ts; do not edit by hand. -->

Every problem Toolpack reports has a stable code: \`mcp\` prints it in diagnostics
(\`path:line: error E_NO_DESCRIPTION: ...\`), \`--json\` output carries it in \`code\`, and the
registry's HTTP API answers \`{ "error": { "code": ... } }\`. Codes never change meaning or name;
match on them, not on the message.

- \`E_\` codes are errors. Thrown by a command, they set its exit code (below). As a diagnostic
  (\`mcp check\`, \`mcp list\`), they make \`mcp check\` exit 1 and keep that tool from being served.
- \`W_\` codes are warnings and \`I_\` codes are notes: printed, never failing a command.

Exit codes: \`0\` ok, \`1\` the result is a failure, \`2\` bad usage or input. The registry's own
command (\`toolpack-registry\`) exits the same way; codes marked "Registry API" reach \`mcp\` inside
\`E_REGISTRY\` or \`E_PUBLISH_REJECTED\`.
\`mcp serve\` chooses its exit itself when it refuses to start: 2 on \`E_MAX_TOOLS\`,
\`E_PACK_COLLISION\` and \`E_COLLISION\`.

An error that is not one of these (an exception Toolpack did not expect) is a bug in Toolpack:
\`mcp\` prints one line naming the version and where to report it, and exits 1. Set
\`TOOLPACK_DEBUG=1\` to print the stack as well, and include it in the report.

## Errors

${renderTable('E_')}

## Warnings

${renderTable('W_')}

## Notes

${renderTable('I_')}
`;
}

describe('docs/error-codes.md', () => {
  it('is the catalogue of packages/core/src/error-codes.ts', async () => {
    await expect(renderDoc()).toMatchFileSnapshot(DOC);
  });
});
