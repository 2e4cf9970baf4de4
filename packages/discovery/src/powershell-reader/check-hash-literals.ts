import { parseNumberLiteral } from './constant-value.ts';
import { STATEMENT_KEYWORDS } from './powershell-keywords.ts';
import type { ParseProblem, Token } from './tokenizer.ts';

/**
 * PowerShell's `MissingEqualsInHashLiteral`: a key of a hash literal `@{ ... }` not followed by
 * `=` on its line (`@{ a = 1; b }`, a `@{` written where a script block was meant, as
 * lazywinadmin's Get-PolicyComplianceData.ps1 does). Such a script never loads.
 *
 * A false error refuses a working tool, so this judges only what it reads for certain: keys
 * that are a string, a variable, a number, a plain name or a parenthesised expression (with
 * member access glued to it), and entries after a value that plainly ends on its line. At
 * anything else (a value that starts with a keyword such as `if`, a line ending in an
 * operator, an unusual key) it stops judging that literal; pwsh reports what is left when the
 * tool runs. parse-parity.test.ts holds it to PowerShell's own parser.
 */
export function findHashLiteralErrors(tokens: readonly Token[]): ParseProblem[] {
  const problems: ParseProblem[] = [];
  tokens.forEach((token, index) => {
    if (token.kind !== 'open' || token.text !== '@{' || token.match === undefined) return;
    const problem = checkHashLiteral(tokens, index + 1, token.match);
    if (problem !== undefined) problems.push(problem);
  });
  return problems;
}

const NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;
/**
 * A name with `-`, `.` or `:` right after it (`Display-Name`, `a.b`): PowerShell's key is the
 * name alone, and what follows is no `=`.
 */
const NAME_THEN_OPERATOR = /^[\p{L}_][\p{L}\p{N}_]*[-.:]/u;
/** readKey's answer for a key PowerShell cuts short inside one word. */
const KEY_CUT = -1;
/** A glued member access: `.Name`, `::Name`. */
const MEMBER = /^(?:\.|::)[\p{L}_][\p{L}\p{N}_]*$/u;

function skipComments(tokens: readonly Token[], index: number, close: number): number {
  let i = index;
  while (i < close && (tokens[i] as Token).kind === 'comment') i++;
  return i;
}

function skipSeparators(tokens: readonly Token[], index: number, close: number): number {
  let i = index;
  while (i < close && ['comment', 'newline', 'semicolon'].includes((tokens[i] as Token).kind)) i++;
  return i;
}

const isNumber = (token: Token) =>
  token.kind === 'word' && parseNumberLiteral(token.text) !== undefined;

/** The index after the key at `index`, or undefined when the key is not one this reads for certain. */
function readKey(tokens: readonly Token[], index: number): number | undefined {
  const token = tokens[index] as Token;
  let next: number;
  if (token.kind === 'string' || token.kind === 'variable') next = index + 1;
  else if (token.kind === 'word' && (NAME.test(token.text) || isNumber(token))) return index + 1;
  else if (token.kind === 'word' && NAME_THEN_OPERATOR.test(token.text)) return KEY_CUT;
  else if (token.kind === 'open' && token.text === '(' && token.match !== undefined)
    next = token.match + 1;
  else return undefined;
  // Member access and indexes glued to a string, variable or group belong to the key.
  for (;;) {
    const previous = tokens[next - 1] as Token;
    const following = tokens[next] as Token | undefined;
    if (following === undefined || following.start !== previous.end) return next;
    if (following.kind === 'word' && MEMBER.test(following.text)) next += 1;
    else if (following.kind === 'open' && following.text === '[' && following.match !== undefined)
      next = following.match + 1;
    // `$a.1`, `$a-1`: PowerShell reads on in ways this does not follow.
    else
      return ['equals', 'newline', 'semicolon', 'close', 'comment'].includes(following.kind)
        ? next
        : undefined;
  }
}

/** Whether a line break after `token` plainly ends the statement it closes. */
function endsStatement(token: Token): boolean {
  if (token.kind === 'string' || token.kind === 'variable') return true;
  if (token.kind === 'close') return true;
  return (
    token.kind === 'word' && (NAME.test(token.text) || MEMBER.test(token.text) || isNumber(token))
  );
}

const missingEquals = (line: number): ParseProblem => ({
  message: "Missing '=' operator after key in hash literal",
  line,
});

function checkHashLiteral(
  tokens: readonly Token[],
  start: number,
  close: number,
): ParseProblem | undefined {
  let i = skipComments(tokens, start, close);
  while (i < close && (tokens[i] as Token).kind === 'newline')
    i = skipComments(tokens, i + 1, close);
  // `@{ ;a = 1 }` is an error of another kind.
  if (i < close && (tokens[i] as Token).kind === 'semicolon') return undefined;
  while (i < close) {
    const keyEnd = readKey(tokens, i);
    if (keyEnd === KEY_CUT) return missingEquals((tokens[i] as Token).line);
    if (keyEnd === undefined || keyEnd > close) return undefined;
    const after = skipComments(tokens, keyEnd, close);
    const next = tokens[after] as Token;
    if (next.kind !== 'equals') {
      const certain =
        after === close ||
        next.kind === 'newline' ||
        next.kind === 'semicolon' ||
        next.kind === 'string' ||
        next.kind === 'variable' ||
        (next.kind === 'word' && (NAME.test(next.text) || isNumber(next)));
      return certain ? missingEquals((tokens[keyEnd - 1] as Token).endLine) : undefined;
    }
    // The value: a statement, on the next line if need be.
    let j = after + 1;
    while (j < close && ['comment', 'newline'].includes((tokens[j] as Token).kind)) j++;
    const first = tokens[j] as Token;
    if (j >= close) return undefined;
    if (first.kind === 'word' && STATEMENT_KEYWORDS.has(first.text.toLowerCase())) return undefined;
    let last = first;
    for (;;) {
      const token = tokens[j] as Token;
      if (j >= close) return undefined;
      if (token.kind === 'semicolon') break;
      if (token.kind === 'newline') {
        if (!endsStatement(last)) return undefined;
        break;
      }
      if (token.kind !== 'comment')
        last =
          token.kind === 'open' && token.match !== undefined
            ? (tokens[token.match] as Token)
            : token;
      j = token.kind === 'open' && token.match !== undefined ? token.match + 1 : j + 1;
      if (j > close) return undefined;
    }
    i = skipSeparators(tokens, j, close);
    // A leading `|` continues the statement on the next line (PowerShell 7).
    if (i < close && (tokens[i] as Token).kind === 'pipe') return undefined;
  }
  return undefined;
}
