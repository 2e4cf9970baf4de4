/**
 * Comment-based help, read the way PowerShell's own help parser reads it: which comment
 * block counts as help (placement and proximity rules of `about_Comment_Based_Help`), which
 * blocks are rejected (unknown keyword, text on a keyword's line, text before the first
 * keyword), how a section's text is dedented, and where parameter comments come from.
 */
import { findClosestName } from '@toolpack/core';
import type { PowerShellDocument, PsFunction, PsParameter } from './reader.ts';
import { tokenizePowerShell } from './tokenizer.ts';
import type { Token } from './tokenizer.ts';

export interface CommentHelp {
  synopsis?: string;
  description?: string;
  /**
   * `.PARAMETER` sections keyed by the parameter name in lower case (PowerShell matches them
   * case-insensitively: look up with `name.toLowerCase()`). The first section for a name wins.
   */
  parameters: Record<string, string>;
  notes?: string;
  examples: string[];
  /** `.OUTPUTS` sections in source order: each names a type on its first line. */
  outputs: string[];
  links: string[];
  /** `.EXTERNALHELP`'s file, as written: its MAML entry for the command replaces this help (find-external-help.ts). */
  externalHelp?: string;
  /** How many comment tokens the block is: PowerShell drops a one-token `.EXTERNALHELP` block whose file is missing. */
  commentTokens?: number;
  /** The external help file this help was read from; absent for comment-based help. `lines` are lines of it. */
  file?: string;
  /** 1-based lines: the block's first line and each section's first text line. */
  lines: {
    start: number;
    end: number;
    synopsis?: number;
    description?: number;
    notes?: number;
    /** The first text line of each `.EXAMPLE` and `.OUTPUTS`, in the order of `examples` and `outputs`. */
    examples: number[];
    outputs: number[];
    parameters: Record<string, number>;
  };
}

/** Why a comment block that looks like help is not help for PowerShell. */
export interface HelpRejection {
  reason: string;
  line: number;
  /** The help keyword an unknown one is a misspelling of (`.SYNOPSIS` for `.SYNOPSYS`). */
  suggestion?: string;
}

interface CommentLine {
  text: string;
  line: number;
}

const DIRECTIVE = /^\s*\.([\p{L}\p{N}_]+)(\s+(\S.*))?\s*$/u;
const BLANK = /^\s*$/;
const SECTION_KEYWORDS = new Set([
  'SYNOPSIS',
  'DESCRIPTION',
  'NOTES',
  'LINK',
  'EXAMPLE',
  'INPUTS',
  'OUTPUTS',
  'COMPONENT',
  'ROLE',
  'FUNCTIONALITY',
]);
const ARGUMENT_KEYWORDS = new Set([
  'PARAMETER',
  'FORWARDHELPTARGETNAME',
  'FORWARDHELPCATEGORY',
  'REMOTEHELPRUNSPACE',
  'EXTERNALHELP',
]);

/** The help keyword `keyword` is a misspelling of: two edits at most, one for short words. */
function findIntendedKeyword(keyword: string): string | undefined {
  return findClosestName(
    keyword,
    [...SECTION_KEYWORDS, ...ARGUMENT_KEYWORDS],
    keyword.length <= 4 ? 1 : 2,
  );
}

/** An unknown keyword's rejection, naming the keyword meant when it is a misspelling of one. */
function rejectUnknownKeyword(written: string, line: number): HelpRejection {
  const intended = findIntendedKeyword(written.toUpperCase());
  return intended === undefined
    ? { reason: `".${written}" is not a comment-based help keyword`, line }
    : {
        reason: `".${written}" is not a comment-based help keyword (did you mean .${intended}?)`,
        line,
        suggestion: `.${intended}`,
      };
}
/** Where PowerShell looks for help: at most one blank line between a comment block and what it documents. */
const COMMENT_BLOCK_PROXIMITY = 2;

/** Splits comment tokens into lines the way PowerShell does (`<#`/`#>` and leading `#`s removed). */
function collectCommentLines(comments: readonly Token[]): CommentLine[] {
  const lines: CommentLine[] = [];
  for (const comment of comments) {
    const text = comment.text;
    if (text.startsWith('<#')) {
      const inner = text.endsWith('#>') && text.length >= 4 ? text.slice(2, -2) : text.slice(2);
      inner
        .split(/\r\n|\n|\r/)
        .forEach((part, index) => lines.push({ text: part, line: comment.line + index }));
    } else {
      lines.push({ text: text.replace(/^#+/, ''), line: comment.line });
    }
  }
  return lines;
}

/** A section's text: leading blank lines skipped, dedented by its first line's indentation. */
function readSection(
  lines: readonly CommentLine[],
  index: number,
): { text: string; line?: number; last: number } {
  let capturing = false;
  let indent = 0;
  let text = '';
  let firstLine: number | undefined;
  let i = index + 1;
  for (; i < lines.length; i++) {
    const { text: line, line: lineNumber } = lines[i] as CommentLine;
    if (!capturing && BLANK.test(line)) continue;
    if (DIRECTIVE.test(line)) break;
    if (!capturing) {
      while (indent < line.length && isIndent(line[indent] as string)) indent++;
      firstLine = lineNumber;
    }
    capturing = true;
    let start = 0;
    while (start < line.length && start < indent && isIndent(line[start] as string)) start++;
    text += `${line.slice(start)}\n`;
  }
  const section: { text: string; line?: number; last: number } = { text, last: i - 1 };
  if (firstLine !== undefined) section.line = firstLine;
  return section;
}

function isIndent(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\u00A0';
}

/** Trailing whitespace of each line and blank lines around the text removed. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

function analyzeLines(
  lines: readonly CommentLine[],
): { help: CommentHelp } | { rejection: HelpRejection } | undefined {
  const help: CommentHelp = {
    parameters: {},
    examples: [],
    outputs: [],
    links: [],
    lines: {
      start: lines[0]?.line ?? 1,
      end: lines[lines.length - 1]?.line ?? 1,
      examples: [],
      outputs: [],
      parameters: {},
    },
  };
  let found = false;
  let known = false;
  let rejection: HelpRejection | undefined;
  for (let i = 0; i < lines.length; i++) {
    const { text, line } = lines[i] as CommentLine;
    const match = DIRECTIVE.exec(text);
    if (match === null) {
      if (!BLANK.test(text)) {
        rejection ??= {
          reason: `the text ${JSON.stringify(text.trim())} comes before the first help keyword`,
          line,
        };
      }
      continue;
    }
    found = true;
    const keyword = (match[1] as string).toUpperCase();
    const argument = match[3];
    if (SECTION_KEYWORDS.has(keyword) || ARGUMENT_KEYWORDS.has(keyword)) known = true;
    if (argument !== undefined) {
      if (!ARGUMENT_KEYWORDS.has(keyword)) {
        const problem = SECTION_KEYWORDS.has(keyword)
          ? {
              reason: `".${match[1]}" has text on its own line; PowerShell reads a section's text from the next line on`,
              line,
            }
          : rejectUnknownKeyword(match[1] as string, line);
        rejection ??= problem;
        if (problem.suggestion !== undefined) known = true;
        continue;
      }
      if (keyword === 'EXTERNALHELP') help.externalHelp = argument.trim();
      if (keyword === 'PARAMETER') {
        const name = argument.trim().toLowerCase();
        const section = readSection(lines, i);
        i = section.last;
        if (!Object.hasOwn(help.parameters, name)) {
          help.parameters[name] = tidy(section.text);
          help.lines.parameters[name] = section.line ?? line;
        }
      }
      continue;
    }
    if (!SECTION_KEYWORDS.has(keyword)) {
      const unknown = rejectUnknownKeyword(match[1] as string, line);
      rejection ??= unknown;
      // A misspelled keyword shows the block was meant as help, even with no keyword right.
      if (unknown.suggestion !== undefined) known = true;
      continue;
    }
    const section = readSection(lines, i);
    i = section.last;
    const value = tidy(section.text);
    switch (keyword) {
      case 'SYNOPSIS':
        help.synopsis = value;
        help.lines.synopsis = section.line ?? line;
        break;
      case 'DESCRIPTION':
        help.description = value;
        help.lines.description = section.line ?? line;
        break;
      case 'NOTES':
        help.notes = value;
        help.lines.notes = section.line ?? line;
        break;
      case 'EXAMPLE':
        help.examples.push(value);
        help.lines.examples.push(section.line ?? line);
        break;
      case 'OUTPUTS':
        help.outputs.push(value);
        help.lines.outputs.push(section.line ?? line);
        break;
      case 'LINK':
        help.links.push(value.trim());
        break;
      default:
        break;
    }
  }
  if (!found) return undefined;
  // A rejected block only matters when it was meant as help (a real or misspelled keyword).
  if (rejection !== undefined) return known ? { rejection } : undefined;
  if (help.synopsis === '') delete help.synopsis;
  if (help.description === '') delete help.description;
  return { help };
}

/**
 * Reads one comment-based help block: the comment text as written (`<# ... #>` or `#` lines),
 * or its lines without comment markers. Returns undefined when PowerShell would not treat
 * the text as help (no keyword, an unknown keyword, text on a keyword's line, or text before
 * the first keyword). `options.line` is the line the text starts on (default 1).
 */
export function parseCommentHelp(
  text: string,
  options: { line?: number } = {},
): CommentHelp | undefined {
  const first = options.line ?? 1;
  const trimmed = text.trimStart();
  let lines: CommentLine[];
  if (trimmed.startsWith('#') || trimmed.startsWith('<#')) {
    const { tokens } = tokenizePowerShell(text);
    const comments = tokens
      .filter((token) => token.kind === 'comment')
      .map((token) => ({ ...token, line: token.line + first - 1 }));
    lines = collectCommentLines(comments);
  } else {
    lines = text.split(/\r\n|\n|\r/).map((line, index) => ({ text: line, line: first + index }));
  }
  const result = analyzeLines(lines);
  return result !== undefined && 'help' in result ? result.help : undefined;
}

function getCommentBlock(
  tokens: readonly Token[],
  start: number,
): { comments: Token[]; next: number } {
  const comments: Token[] = [];
  let nextMaxStartLine = Number.POSITIVE_INFINITY;
  for (let i = start; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.line > nextMaxStartLine) return { comments, next: i };
    if (token.kind === 'comment') {
      comments.push(token);
      nextMaxStartLine = token.endLine + 1;
    } else if (token.kind !== 'newline') {
      return { comments, next: i };
    }
  }
  return { comments, next: tokens.length };
}

function getPrecedingCommentBlock(
  tokens: readonly Token[],
  index: number,
  proximity: number,
): Token[] {
  const comments: Token[] = [];
  let minEndLine = (tokens[index] as Token).line - proximity;
  for (let i = index - 1; i >= 0; i--) {
    const token = tokens[i] as Token;
    if (token.endLine < minEndLine) break;
    if (token.kind === 'comment') {
      comments.push(token);
      minEndLine = token.line - 1;
    } else if (token.kind !== 'newline') {
      break;
    }
  }
  return comments.reverse();
}

export interface HelpSearch {
  help?: CommentHelp;
  /** Blocks that look like help but that PowerShell would ignore, with the reason. */
  rejections: HelpRejection[];
  /** External help files read for the command that have no entry for it (find-external-help.ts). */
  externalHelpFiles?: string[];
}

function analyzeBlock(comments: readonly Token[], search: HelpSearch): CommentHelp | undefined {
  if (comments.length === 0) return undefined;
  const result = analyzeLines(collectCommentLines(comments));
  if (result === undefined) return undefined;
  if ('rejection' in result) {
    search.rejections.push(result.rejection);
    return undefined;
  }
  result.help.commentTokens = comments.length;
  return result.help;
}

/**
 * The help of a script: the first help block at the top of the file (unless it sits within
 * one blank line of a function that opens the script: then it is that function's), else
 * the help block at the end of the file.
 */
export function findScriptHelp(document: PowerShellDocument): HelpSearch {
  const tokens = document.tokens;
  const search: HelpSearch = { rejections: [] };
  let start = 0;
  for (;;) {
    const block = getCommentBlock(tokens, start);
    start = block.next;
    if (block.comments.length === 0) break;
    const help = analyzeBlock(block.comments, search);
    if (help === undefined) continue;
    if (!document.namedBlocks && document.firstStatementFunctionLine !== undefined) {
      const last = block.comments[block.comments.length - 1] as Token;
      if (document.firstStatementFunctionLine - last.endLine > COMMENT_BLOCK_PROXIMITY)
        search.help = help;
      else {
        search.rejections.push({
          reason: `the script's first statement, the function at line ${document.firstStatementFunctionLine}, starts within two lines of it, so PowerShell gives the help to that function (leave two blank lines between them)`,
          line: (block.comments[0] as Token).line,
        });
      }
      break;
    }
    search.help = help;
    return search;
  }
  if (search.help !== undefined) return search;
  const endIndex = tokens.length - 1;
  const help = analyzeBlock(
    getPrecedingCommentBlock(tokens, endIndex, (tokens[endIndex] as Token).line),
    search,
  );
  if (help !== undefined) search.help = help;
  return search;
}

/** The help of a function: right before `function`, at the start of its body, or at its end. */
export function findFunctionHelp(document: PowerShellDocument, fn: PsFunction): HelpSearch {
  const tokens = document.tokens;
  const search: HelpSearch = { rejections: [] };
  const before = analyzeBlock(
    getPrecedingCommentBlock(tokens, fn.keywordIndex, COMMENT_BLOCK_PROXIMITY),
    search,
  );
  if (before !== undefined) {
    search.help = before;
    return search;
  }
  let start = fn.bodyOpen + 1;
  for (;;) {
    const block = getCommentBlock(tokens, start);
    start = block.next;
    if (block.comments.length === 0) break;
    const help = analyzeBlock(block.comments, search);
    if (help !== undefined) {
      search.help = help;
      return search;
    }
  }
  const closing = tokens[fn.bodyClose] as Token;
  const after = analyzeBlock(getPrecedingCommentBlock(tokens, fn.bodyClose, closing.line), search);
  if (after !== undefined) search.help = after;
  return search;
}

/**
 * The comment PowerShell attaches to each parameter when help has no `.PARAMETER` for it:
 * the comments right above it, inside it, and right after it.
 */
export function findParameterComments(
  document: PowerShellDocument,
  parameters: readonly PsParameter[],
): string[] {
  const tokens = document.tokens;
  return parameters.map((parameter) => {
    const comments = getPrecedingCommentBlock(
      tokens,
      parameter.firstToken,
      COMMENT_BLOCK_PROXIMITY,
    );
    for (let i = parameter.firstToken; i < parameter.lastToken; i++) {
      if ((tokens[i] as Token).kind === 'comment') comments.push(tokens[i] as Token);
    }
    comments.push(...getCommentBlock(tokens, parameter.lastToken + 1).comments);
    // A comment's continuation lines keep the indentation of the code around it: drop it.
    return tidy(readSection(collectCommentLines(comments), -1).text.replace(/^[ \t\u00A0]+/gm, ''));
  });
}

/** Runs of spaces and tabs as one space, each line trimmed: how two help texts are compared. */
function flattenSpaces(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .trim();
}

/**
 * A command's description from its help: the synopsis, a blank line, the description. When the
 * description opens with the synopsis's sentence (help written as "summary, then the summary
 * again with more"), the synopsis is not repeated: the description alone says it all.
 */
export function joinHelpDescription(
  synopsis: string | undefined,
  description: string | undefined,
): string {
  const summary = synopsis?.trim() ?? '';
  const body = description?.trim() ?? '';
  if (summary === '' || body === '') return summary === '' ? body : summary;
  const sentence = flattenSpaces(summary).replace(/[.!?]+$/, '');
  const flatBody = flattenSpaces(body);
  // The same sentence: what follows it in the description ends it (punctuation, a line break, the end).
  if (flatBody.startsWith(sentence) && /^(?:[.!?:]|\n|$)/.test(flatBody.slice(sentence.length)))
    return body;
  return `${summary}\n\n${body}`;
}
