import {
  createDiagnostic,
  findClosestName,
  findParameterProblems,
  parseHints,
} from '@toolpack/core';
import type { Diagnostic, HintLine } from '@toolpack/core';
import type {
  DeclarationDialect,
  DeclarationLine,
  DeclarationProblem,
  DeclaredExample,
  DeclaredParameter,
  ParseDeclarationsOptions,
  ParsedDeclarations,
} from './declaration-types.ts';
import { parseDescriptionText } from './parse-description-text.ts';
import { parseExampleLine } from './parse-example-line.ts';
import { readHintsStatement } from './parse-hints-line.ts';
import { readOptionsStatement, readTimeoutStatement } from './parse-options-line.ts';
import { parseParamLine } from './parse-param-line.ts';

type DeclarationKind =
  'param' | 'output' | 'description' | 'hints' | 'example' | 'options' | 'timeout' | 'other';
const DURATION = /^\d+(?:\.\d+)?\s*(?:ms|s|m|h)?$/i;
const KEYWORDS = new Set([
  'PARAM',
  'OUTPUT',
  'DESCRIPTION',
  'HINTS',
  'EXAMPLE',
  'OPTIONS',
  'TIMEOUT',
]);

/** Which statement a line holds, if any. */
export function classifyDeclarationLine(
  text: string,
  dialect: DeclarationDialect,
): DeclarationKind {
  const match = /^\s*([A-Za-z]+)(?=\s|"|$)(.*)$/s.exec(text);
  if (match === null) return 'other';
  const word = match[1] ?? '';
  const rest = match[2] ?? '';
  const upper = word.toUpperCase();
  // `TIMEOUT = 5` is a BASIC assignment, not a statement; the same holds for every keyword.
  if (!KEYWORDS.has(upper) || /^\s*=/.test(rest)) return 'other';
  // In a header comment an ordinary sentence may start with "Description", "param" or
  // "Example": only the upper-case keyword, or a line shaped like a declaration, counts there.
  const strict = dialect === 'header' && word !== upper;
  switch (upper) {
    case 'HINTS':
    case 'OPTIONS':
      return strict ? 'other' : (upper.toLowerCase() as DeclarationKind);
    case 'PARAM':
    case 'OUTPUT':
      if (strict && !/^\s+[A-Za-z_][A-Za-z0-9_]*\s+as\s/i.test(`${rest} `)) return 'other';
      return upper === 'PARAM' ? 'param' : 'output';
    case 'EXAMPLE':
      return strict && !/^\s*\{/.test(rest) ? 'other' : 'example';
    case 'TIMEOUT':
      // Trimmed first: two runs of \s* around an optional unit would backtrack quadratically.
      return strict && !(/^\s/.test(rest) && DURATION.test(rest.trim())) ? 'other' : 'timeout';
    default:
      return strict && !/^\s*"/.test(rest) ? 'other' : 'description';
  }
}

/**
 * The keyword an upper-case first word of a header line misspells (`PARM` for `PARAM`), with
 * text after it: a line Toolpack would otherwise skip without a word. Only upper case, as the
 * header's own keywords are written, so an ordinary sentence is never taken for one.
 */
export function findMisspelledKeyword(
  text: string,
  dialect: DeclarationDialect,
): string | undefined {
  if (dialect !== 'header') return undefined;
  const match = /^\s*([A-Z]{3,})\s+\S/.exec(text);
  const word = match?.[1];
  if (word === undefined || KEYWORDS.has(word)) return undefined;
  return findClosestName(word, KEYWORDS, word.length <= 4 ? 1 : 2);
}

/** Parses the declarations of one tool: its description and its parameters, with every problem. */
export function parseDeclarations(
  lines: readonly DeclarationLine[],
  options: ParseDeclarationsOptions,
): ParsedDeclarations {
  const { path, dialect } = options;
  const diagnostics: Diagnostic[] = [];
  const parameters: DeclaredParameter[] = [];
  const outputs: DeclaredParameter[] = [];
  const examples: DeclaredExample[] = [];
  const opted: { longRunning?: true; progressResetsTimeout?: true } = {};
  let timeoutMs: number | undefined;
  let timeoutLine: number | undefined;
  const described = new Set<DeclaredParameter>();
  let description: string | undefined;
  let descriptionLine: number | undefined;
  let firstLine: number | undefined;
  let waiting: DeclaredParameter | undefined;
  let brokenParamLine: number | undefined;
  const hintEntries: HintLine[] = [];

  const report = (line: number, problem: DeclarationProblem): void => {
    diagnostics.push(
      createDiagnostic(
        problem.severity ?? 'error',
        problem.code,
        problem.message,
        { path, line },
        problem.hint,
      ),
    );
  };

  for (const { text, line } of lines) {
    const kind = classifyDeclarationLine(text, dialect);
    if (kind === 'other') {
      waiting = undefined;
      const meant = findMisspelledKeyword(text, dialect);
      if (meant !== undefined)
        report(line, {
          severity: 'warning',
          code: 'W_MISSPELLED_KEYWORD',
          message: `The header line ${JSON.stringify(text.trim())} starts with ${JSON.stringify(/[A-Z]+/.exec(text)?.[0] ?? '')}, which is no header keyword, so the line is ignored.`,
          hint: `Did you mean ${meant}? Correct the keyword.`,
        });
      continue;
    }
    firstLine ??= line;
    const body = text.replace(/^\s*[A-Za-z]+/, '');
    if (kind === 'hints') {
      waiting = undefined;
      const statement = readHintsStatement(body, line);
      for (const problem of statement.problems) report(line, problem);
      hintEntries.push(...statement.entries);
      continue;
    }
    if (kind === 'example') {
      waiting = undefined;
      const result = parseExampleLine(body);
      if (result.ok) examples.push({ example: result.example, line });
      else report(line, result.problem);
      continue;
    }
    if (kind === 'options') {
      waiting = undefined;
      const statement = readOptionsStatement(body);
      for (const problem of statement.problems) report(line, problem);
      Object.assign(opted, statement.options);
      continue;
    }
    if (kind === 'timeout') {
      waiting = undefined;
      const result = readTimeoutStatement(body);
      if (!result.ok) report(line, result.problem);
      else if (timeoutLine !== undefined) {
        report(line, {
          code: 'E_DECLARATION_SYNTAX',
          message: `A second TIMEOUT line; the first is on line ${timeoutLine}.`,
          hint: 'Keep one TIMEOUT line.',
        });
      } else {
        timeoutMs = result.timeoutMs;
        timeoutLine = line;
      }
      continue;
    }
    if (kind === 'param' || kind === 'output') {
      waiting = undefined;
      const statement = kind === 'param' ? 'PARAM' : 'OUTPUT';
      const result = parseParamLine(body, { dialect, statement });
      if (!result.ok) {
        for (const problem of result.problems) report(line, problem);
        // A broken PARAM line with no DESCRIPTION of its own may be followed by its
        // description; that line must not be taken for the tool's.
        brokenParamLine = /(?:^|\s)DESCRIPTION(?:\s|"|$)/i.test(body) ? undefined : line;
        continue;
      }
      for (const warning of result.value.warnings)
        report(line, { ...warning, severity: 'warning' });
      const parameter: DeclaredParameter = { spec: result.value.spec, line };
      (kind === 'param' ? parameters : outputs).push(parameter);
      if (result.value.hasDescription) described.add(parameter);
      else waiting = parameter;
      continue;
    }
    const parsed = parseDescriptionText(body);
    const target = waiting !== undefined && waiting.line === line - 1 ? waiting : undefined;
    waiting = undefined;
    if (!parsed.ok) {
      if (target !== undefined) {
        const message =
          parsed.problem.message.charAt(0).toLowerCase() + parsed.problem.message.slice(1);
        const statement = outputs.includes(target) ? 'OUTPUT' : 'PARAM';
        report(line, {
          ...parsed.problem,
          message: `${statement} ${target.spec.name}: ${message}`,
        });
        described.add(target);
        continue;
      }
      report(line, parsed.problem);
      if (brokenParamLine !== line - 1) descriptionLine ??= line;
      continue;
    }
    if (target !== undefined) {
      target.spec.description = parsed.text;
      described.add(target);
    } else if (brokenParamLine === line - 1) {
      // Belongs to a PARAM line that was already reported; do not take it for the tool's.
      continue;
    } else if (description === undefined && descriptionLine === undefined) {
      description = parsed.text;
      descriptionLine = line;
    } else {
      report(line, {
        code: 'W_DUPLICATE_DESCRIPTION',
        severity: 'warning',
        message: `A second DESCRIPTION line is ignored; the tool's description is the one on line ${descriptionLine}.`,
        hint: 'Keep one DESCRIPTION line for the tool, or put this one right after the PARAM line it describes.',
      });
    }
  }

  checkDeclaredProperties(parameters, 'PARAM', described, report);
  checkDeclaredProperties(outputs, 'OUTPUT', described, report);

  // One call for every HINTS line, so readOnly on one line and destructive on another conflict.
  const hints = parseHints(hintEntries, { path });
  diagnostics.push(...hints.diagnostics);

  const declaresTool = firstLine !== undefined;
  if (declaresTool && description === undefined && descriptionLine === undefined) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_NO_DESCRIPTION',
        'The tool has declaration lines (PARAM, OUTPUT, HINTS, ...) but no DESCRIPTION line saying what it does.',
        { path, line: firstLine },
        'Add a line DESCRIPTION "what the tool does" (a DESCRIPTION right after a PARAM line describes that parameter).',
      ),
    );
  }

  // Problems found after the first pass (missing descriptions, duplicates) go back in line order.
  diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const result: ParsedDeclarations = {
    parameters,
    outputs,
    examples,
    ...opted,
    diagnostics,
    annotations: hints.annotations,
    declaresTool,
  };
  if (description !== undefined) result.description = description;
  if (descriptionLine !== undefined) result.descriptionLine = descriptionLine;
  if (firstLine !== undefined) result.firstLine = firstLine;
  if (timeoutMs !== undefined) result.timeoutMs = timeoutMs;
  return result;
}

/** Every PARAM (or every OUTPUT) described, named once, and with values that fit its type. */
function checkDeclaredProperties(
  declared: readonly DeclaredParameter[],
  statement: 'PARAM' | 'OUTPUT',
  described: ReadonlySet<DeclaredParameter>,
  report: (line: number, problem: DeclarationProblem) => void,
): void {
  const seen = new Map<string, DeclaredParameter>();
  for (const parameter of declared) {
    const { spec, line } = parameter;
    if (!described.has(parameter)) {
      report(line, {
        code: 'E_PARAM_DESCRIPTION',
        message: `${statement} ${spec.name} has no description.`,
        hint: `End the line with DESCRIPTION "what ${spec.name} is", or put a DESCRIPTION "..." line right after it.`,
      });
    }
    const key = spec.name.toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      report(line, {
        code: 'E_DUPLICATE_PARAM',
        message: `${statement} ${spec.name} is declared twice (first on line ${earlier.line}; names are compared ignoring case).`,
        hint: 'Rename or remove one of the two declarations.',
      });
    } else {
      seen.set(key, parameter);
    }
    for (const problem of findParameterProblems([spec])) {
      const detail = problem
        .replace(/^parameter "[^"]*": /, '')
        .replace(/^parameter "[^"]*" items: /, 'its items: ');
      report(line, {
        code: 'E_PARAM_INVALID',
        message: `${statement} ${spec.name}: ${detail}.`,
        hint: 'Make the LIKE, DEFAULT and ENUM values fit the declared type.',
      });
    }
  }
}
