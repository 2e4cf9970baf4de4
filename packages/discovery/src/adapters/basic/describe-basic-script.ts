import type { SourceResult } from '../../types.ts';
import { describeDeclaredScript } from '../header-script/declared-tool.ts';
import type { DeclarationLine } from '../header-script/declaration-types.ts';

export interface DescribeBasicScriptInput {
  path: string;
  content: string;
}

/**
 * Describes a BotServer-style `.bas` tool: `PARAM` and `DESCRIPTION` statements anywhere
 * in the file (outside `'`/`REM` comments and `BEGIN ... END` text blocks) compile to the
 * tool's definition, checked the way BotServer checks them at compile time (valid names,
 * supported types, non-empty descriptions, unique names), each problem with its line:
 *
 * ```basic
 * PARAM name AS string LIKE "João Silva" DESCRIPTION "Full name of the person"
 * PARAM birthday AS date LIKE "2001-09-23"
 * DESCRIPTION "Birth date"
 * PARAM tags AS array OF string OPTIONAL ENUM ["vip", "new"] DESCRIPTION "Labels"
 * DESCRIPTION "Enrolls a person. Called when the user wants to enroll."
 * ```
 *
 * Beyond BotServer: `OPTIONAL` (BotServer makes every parameter required), `ENUM`, typed
 * arrays, `integer` kept apart from `number`, and `DEFAULT`. `date`/`datetime` become
 * strings with the `date`/`date-time` format. The tool is named after the file and run by
 * the interpreter configured for `.bas`, with its arguments as JSON on stdin.
 * Pure: the same input always gives the same JSON-serialisable result.
 */
export function describeBasicScript(input: DescribeBasicScriptInput): SourceResult {
  return describeDeclaredScript({
    path: input.path,
    lines: readBasicStatements(input.content),
    dialect: 'basic',
    kind: 'basic',
    extension: '.bas',
    commentPrefix: '',
  });
}

/** The file's lines that can hold statements: comments and `BEGIN ... END` blocks left out. */
export function readBasicStatements(content: string): DeclarationLine[] {
  const lines = content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const statements: DeclarationLine[] = [];
  let block: string | undefined;
  // Lines inside an open block, given back if the block never ends (a missing END must not
  // hide every PARAM after it).
  let blockLines: DeclarationLine[] = [];
  lines.forEach((raw, index) => {
    const text = raw.trim();
    if (block !== undefined) {
      // BotServer's text blocks (BEGIN SYSTEM PROMPT / BEGIN TALK / BEGIN MAIL) hold prose
      // that may well start with "Description".
      if (/^END\s/i.test(text) && normalizeBlockName(text.slice(3)) === block) {
        block = undefined;
        blockLines = [];
      } else {
        blockLines.push({ text, line: index + 1 });
      }
      return;
    }
    const begin = /^BEGIN\s+(\S.*)$/i.exec(text);
    if (begin !== null) {
      block = normalizeBlockName(begin[1] ?? '');
      return;
    }
    statements.push({ text, line: index + 1 });
  });
  statements.push(...blockLines);
  return statements.filter(({ text }) => !text.startsWith("'") && !/^REM(\s|$)/i.test(text));
}

function normalizeBlockName(text: string): string {
  return text.trim().toUpperCase().replace(/\s+/g, ' ');
}
