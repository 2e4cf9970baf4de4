import { dirname, isAbsolute, posix, resolve } from 'node:path';
import { compileLinearPattern, type LinearPattern } from '@toolpack/core';
import { parseNumberLiteral } from './constant-value.ts';
import { listChildItems } from './list-child-items.ts';
import { compileWildcard } from './wildcard.ts';
import type { ChildItem } from './list-child-items.ts';
import { startsStatement } from './reader.ts';
import type { PowerShellDocument, PsFunction } from './reader.ts';
import type { Token } from './tokenizer.ts';

/**
 * What a module file does when PowerShell loads it, as far as exports go: the files it
 * dot-sources (directly, over `Get-ChildItem` results in `foreach`/`ForEach-Object`, or through
 * a helper function of the module that dot-sources its parameter), its `Export-ModuleMember`
 * arguments, and every such construct whose value is only known at run time.
 */
export interface ModuleScriptEffects {
  /** Files dot-sourced into the module's scope, in the order PowerShell loads them. */
  loads: Array<{ path: string; line: number; construct: string }>;
  exports: Array<{ line: number; patterns: string[]; dynamic: string[] }>;
  /** Constructs whose effect could not be worked out without running the module. */
  gaps: Array<{ line: number; construct: string; kind: 'dot-source' | 'export' }>;
}

/** A helper function that dot-sources one of its parameters: `function Import-ModuleFile { param($Path) . $Path }`. */
export interface DotSourcingHelper {
  name: string;
  /** The parameter it dot-sources, and its position among the parameters. */
  parameter: string;
  position: number;
}

/** Shared by every file of one module: dot-sourced files run in the module's scope. */
export interface ModuleScope {
  variables: Map<string, ScriptValue>;
  helpers: Map<string, DotSourcingHelper>;
  /** Directory entries Get-ChildItem may still look at, for the whole module. */
  budget: { remaining: number };
  /** Set when a Get-ChildItem call ran out of budget. */
  truncated: boolean;
}

export type ScriptElement = { kind: 'string'; value: string } | { kind: 'item'; item: ChildItem };

/**
 * A value the reader can follow. `each` marks a loop variable bound to its whole collection at
 * once: its elements are alternatives (one per iteration), not one array.
 */
export type ScriptValue =
  { known: true; elements: ScriptElement[]; each?: boolean } | { known: false; why: string };

const UNKNOWN = (why: string): ScriptValue => ({ known: false, why });
const strings = (values: string[], each?: boolean): ScriptValue => ({
  known: true,
  elements: values.map((value) => ({ kind: 'string', value })),
  ...(each === true ? { each } : {}),
});

const CHILD_ITEM_COMMANDS = new Set(['get-childitem', 'gci', 'dir']);
const FOREACH_COMMANDS = new Set(['foreach-object', '%', 'foreach']);
const CHILD_ITEM_SWITCHES = [
  'recurse',
  'file',
  'directory',
  'force',
  'hidden',
  'name',
  'followsymlink',
  'system',
  'readonly',
  'verbose',
  'debug',
];
const CHILD_ITEM_PARAMETERS = [
  'path',
  'literalpath',
  'filter',
  'include',
  'exclude',
  'depth',
  'erroraction',
  'ea',
  'warningaction',
  'attributes',
  ...CHILD_ITEM_SWITCHES,
];
const BLOCK_KEYWORDS = new Set(['else', 'try', 'finally', 'do', 'begin', 'process', 'end']);
const CONDITION_KEYWORDS = new Set(['if', 'elseif', 'while', 'switch', 'for', 'until']);

function isTrivia(token: Token): boolean {
  return token.kind === 'comment' || token.kind === 'newline';
}

function variableName(token: Token): string {
  return (token.value ?? '').toLowerCase().replace(/^(script|local|private|using):/, '');
}

/** `. $x`: a dot that stands alone (whitespace after it) at the start of a statement. */
function isDotSource(tokens: readonly Token[], index: number): boolean {
  const token = tokens[index] as Token;
  const next = tokens[index + 1] as Token | undefined;
  return (
    token.kind === 'word' &&
    token.text === '.' &&
    next !== undefined &&
    next.start > token.end &&
    next.kind !== 'newline' &&
    next.kind !== 'end'
  );
}

/** Functions whose body dot-sources one of their own parameters: their dot-sourced calls load that file. */
export function findDotSourcingHelpers(document: PowerShellDocument): DotSourcingHelper[] {
  const helpers: DotSourcingHelper[] = [];
  for (const fn of document.functions) {
    const parameters = (fn.paramBlock?.parameters ?? fn.shortParameters?.parameters ?? []).map(
      (p) => p.name.toLowerCase(),
    );
    if (parameters.length === 0) continue;
    const tokens = document.tokens;
    for (let i = fn.bodyOpen + 1; i < fn.bodyClose; i++) {
      if (!isDotSource(tokens, i) || !startsStatement(tokens, i)) continue;
      const end = statementEnd(tokens, i + 1, fn.bodyClose);
      const used = tokens
        .slice(i + 1, end)
        .find((t) => t.kind === 'variable' && parameters.includes(variableName(t)));
      if (used === undefined) continue;
      const parameter = variableName(used);
      helpers.push({ name: fn.name, parameter, position: parameters.indexOf(parameter) });
      break;
    }
  }
  return helpers;
}

/** Operators that carry an expression onto the next line. */
function continuesLine(token: Token): boolean {
  if (token.kind === 'pipe' || token.kind === 'comma' || token.kind === 'equals') return true;
  // Not `*` or `%`: at the end of a command they are arguments (`-Alias *`), not operators.
  return (
    token.kind === 'word' &&
    /^(\+|-(and|or|xor|join|split|replace|f|band|bor|eq|ne|like|notlike|match|notmatch|contains|notcontains|in|notin|as|is))$/i.test(
      token.text,
    )
  );
}

/** The index just past the statement starting at `start` (its newline, `;` or the enclosing close). */
function statementEnd(tokens: readonly Token[], start: number, limit: number): number {
  let last: Token | undefined;
  for (let i = start; i < limit; i++) {
    const token = tokens[i] as Token;
    if (token.kind === 'comment') continue;
    if (token.kind === 'open' && token.match !== undefined) {
      last = tokens[token.match] as Token;
      i = token.match;
      continue;
    }
    if (token.kind === 'semicolon' || token.kind === 'close' || token.kind === 'end') return i;
    if (token.kind === 'newline') {
      if (last !== undefined && continuesLine(last)) continue;
      let next = i + 1;
      while (next < limit && isTrivia(tokens[next] as Token)) next++;
      // PowerShell 7 lets a pipeline go on with `|` at the start of the next line.
      if (next < limit && (tokens[next] as Token).kind === 'pipe') {
        i = next - 1;
        continue;
      }
      return i;
    }
    last = token;
  }
  return limit;
}

/** Splits `[start, end)` at top-level tokens of `kind` (brackets are skipped whole). */
function split(
  tokens: readonly Token[],
  start: number,
  end: number,
  at: (token: Token) => boolean,
): Array<[number, number]> {
  const pieces: Array<[number, number]> = [];
  let from = start;
  for (let i = start; i < end; i++) {
    const token = tokens[i] as Token;
    if (token.kind === 'open' && token.match !== undefined && token.match < end) {
      i = token.match;
      continue;
    }
    if (at(token)) {
      pieces.push([from, i]);
      from = i + 1;
    }
  }
  pieces.push([from, end]);
  return pieces;
}

/** Groups of tokens glued together without whitespace: one command argument each. */
function argumentGroups(
  tokens: readonly Token[],
  start: number,
  end: number,
): Array<[number, number]> {
  const groups: Array<[number, number]> = [];
  let i = start;
  while (i < end) {
    const token = tokens[i] as Token;
    if (isTrivia(token)) {
      i++;
      continue;
    }
    if (token.kind === 'comma') {
      groups.push([i, i + 1]);
      i++;
      continue;
    }
    const from = i;
    let previous = token;
    i = token.kind === 'open' && token.match !== undefined ? token.match + 1 : i + 1;
    while (i < end) {
      const next = tokens[i] as Token;
      const close = tokens[i - 1] as Token;
      if (next.start !== (previous.kind === 'open' ? close.end : previous.end)) break;
      if (['comma', 'newline', 'comment', 'semicolon', 'pipe', 'end'].includes(next.kind)) break;
      previous = next;
      i = next.kind === 'open' && next.match !== undefined ? next.match + 1 : i + 1;
    }
    groups.push([from, i]);
  }
  return groups;
}

interface ParsedArguments {
  named: Map<string, Array<[number, number]>>;
  switches: Set<string>;
  positional: Array<Array<[number, number]>>;
}

/**
 * Binds a command's arguments by name (unique prefixes of `names`) and position; a comma list
 * is one value. Unknown names come back as they were written.
 */
function parseArguments(
  tokens: readonly Token[],
  start: number,
  end: number,
  names: readonly string[],
  switches: readonly string[],
): ParsedArguments {
  const parsed: ParsedArguments = { named: new Map(), switches: new Set(), positional: [] };
  const groups = argumentGroups(tokens, start, end);
  let i = 0;
  const isComma = (index: number): boolean =>
    index < groups.length &&
    (tokens[(groups[index] as [number, number])[0]] as Token).kind === 'comma';
  // One value, or a comma list of them: `-Function Get-A, Get-B`.
  const readValue = (): Array<[number, number]> => {
    const value: Array<[number, number]> = [];
    while (i < groups.length) {
      value.push(groups[i] as [number, number]);
      i++;
      if (!isComma(i)) break;
      i++;
    }
    return value;
  };
  while (i < groups.length) {
    const [from, to] = groups[i] as [number, number];
    const token = tokens[from] as Token;
    if (
      token.kind === 'word' &&
      /^[-\u2013\u2014\u2015]\p{L}/u.test(token.text) &&
      parseNumberLiteral(token.text) === undefined
    ) {
      const [written = '', attached] = token.text.slice(1).toLowerCase().split(/:(.*)/s);
      const matches = names.filter((name) => name.startsWith(written));
      const name = names.includes(written) ? written : matches.length === 1 ? matches[0]! : written;
      i++;
      if (attached !== undefined && attached !== '') {
        parsed.named.set(name, [[from, to]]);
        continue;
      }
      if (switches.includes(name)) {
        parsed.switches.add(name);
        continue;
      }
      parsed.named.set(name, readValue());
      continue;
    }
    parsed.positional.push(readValue());
  }
  return parsed;
}

interface Frame {
  /** The file being evaluated: `$PSScriptRoot` is its folder. */
  path: string;
  /** Pipeline input (`$_`, `$PSItem`) and loop variables, innermost last. */
  locals: Map<string, ScriptValue>;
}

/**
 * Evaluates a module file's statements that decide what it loads and exports, following
 * assignments, `foreach`, `ForEach-Object`, `Get-ChildItem`, `Join-Path` and helper calls.
 * Conditions are not evaluated: every branch is read, as discovery reads every definition.
 */
export class ModuleScriptEvaluator {
  private readonly tokens: Token[];
  private readonly source: string;
  private readonly functions: PsFunction[];
  private readonly scope: ModuleScope;
  private readonly path: string;
  private readonly effects: ModuleScriptEffects = { loads: [], exports: [], gaps: [] };
  /** Dot-source tokens handled, so the ones left over can be reported as gaps. */
  private readonly handled = new Set<number>();

  constructor(document: PowerShellDocument, source: string, path: string, scope: ModuleScope) {
    this.tokens = document.tokens;
    this.source = source;
    this.functions = document.functions;
    this.scope = scope;
    this.path = resolve(path);
  }

  async evaluate(): Promise<ModuleScriptEffects> {
    const frame: Frame = { path: this.path, locals: new Map() };
    await this.walkBlock(0, this.tokens.length - 1, frame);
    this.reportLeftovers();
    return this.effects;
  }

  private text(start: number, end: number): string {
    if (start >= end) return '';
    const first = this.tokens[start] as Token;
    const last = this.tokens[end - 1] as Token;
    return this.source.slice(first.start, last.end).replace(/\s+/g, ' ').trim();
  }

  private gap(line: number, construct: string, kind: 'dot-source' | 'export' = 'dot-source'): void {
    this.effects.gaps.push({ line, construct, kind });
  }

  /** Dot-sources outside function bodies that no evaluated statement accounted for. */
  private reportLeftovers(): void {
    const bodies = this.functions.map((fn) => [fn.bodyOpen, fn.bodyClose] as const);
    for (let i = 0; i < this.tokens.length; i++) {
      if (this.handled.has(i) || !isDotSource(this.tokens, i)) continue;
      if (!startsStatement(this.tokens, i)) continue;
      if (bodies.some(([open, close]) => i > open && i < close)) continue;
      const end = statementEnd(this.tokens, i + 1, this.tokens.length - 1);
      this.gap((this.tokens[i] as Token).line, this.text(i, end));
    }
  }

  private async walkBlock(start: number, end: number, frame: Frame): Promise<void> {
    const tokens = this.tokens;
    let i = start;
    while (i < end) {
      const token = tokens[i] as Token;
      if (isTrivia(token) || token.kind === 'semicolon' || token.kind === 'close') {
        i++;
        continue;
      }
      if (token.kind === 'end') return;
      i = await this.walkStatement(i, end, frame);
    }
  }

  /** Evaluates one statement at `i`; returns the index after it. */
  private async walkStatement(i: number, end: number, frame: Frame): Promise<number> {
    const tokens = this.tokens;
    const token = tokens[i] as Token;
    const word = token.kind === 'word' ? token.text.toLowerCase() : '';
    const skipTo = (index: number): number => {
      let j = index;
      while (j < end && isTrivia(tokens[j] as Token)) j++;
      return j;
    };

    if (word === 'function' || word === 'filter' || word === 'workflow') {
      const fn = this.functions.find((f) => f.keywordIndex === i);
      return fn === undefined ? statementEnd(tokens, i + 1, end) : fn.bodyClose + 1;
    }
    if (word === 'class' || word === 'enum') {
      for (let j = i + 1; j < end; j++) {
        const t = tokens[j] as Token;
        if (t.kind === 'open' && t.text === '{' && t.match !== undefined) return t.match + 1;
        if (t.kind === 'newline' || t.kind === 'semicolon') break;
      }
      return statementEnd(tokens, i + 1, end);
    }
    if (word === 'foreach') {
      const open = skipTo(i + 1);
      const openToken = tokens[open] as Token;
      if (openToken.kind === 'open' && openToken.text === '(' && openToken.match !== undefined) {
        const body = skipTo(openToken.match + 1);
        const bodyToken = tokens[body] as Token;
        if (bodyToken.kind === 'open' && bodyToken.text === '{' && bodyToken.match !== undefined) {
          await this.walkForeach(open, openToken.match, body, bodyToken.match, frame);
          return bodyToken.match + 1;
        }
      }
    }
    if (CONDITION_KEYWORDS.has(word) || BLOCK_KEYWORDS.has(word) || word === 'catch') {
      // Read the bodies of a condition or loop, whatever the condition says.
      let j = skipTo(i + 1);
      while (j < end) {
        const t = tokens[j] as Token;
        if (t.kind === 'open' && t.text === '{' && t.match !== undefined) {
          await this.walkBlock(j + 1, t.match, frame);
          return t.match + 1;
        }
        if (t.kind === 'open' && t.match !== undefined) {
          j = skipTo(t.match + 1);
          continue;
        }
        if (t.kind === 'semicolon' || t.kind === 'end' || t.kind === 'close') break;
        j = skipTo(j + 1);
      }
      return statementEnd(tokens, i + 1, end);
    }

    const stop = statementEnd(tokens, i, end);
    if (isDotSource(tokens, i)) {
      this.handled.add(i);
      await this.dotSource(i, stop, frame);
      return stop;
    }
    if (/^(microsoft\.powershell\.core\\)?export-modulemember$/.test(word)) {
      await this.exportMembers(i, stop, frame);
      return stop;
    }
    // `$x = ...`, `$script:x = ...`, `[type]$x = ...`
    let target = i;
    while (
      (tokens[target] as Token).kind === 'open' &&
      (tokens[target] as Token).text === '[' &&
      (tokens[target] as Token).match !== undefined
    )
      target = skipTo(((tokens[target] as Token).match as number) + 1);
    const equals = skipTo(target + 1);
    if (
      (tokens[target] as Token).kind === 'variable' &&
      (tokens[equals] as Token).kind === 'equals'
    ) {
      const value = await this.evaluatePipeline(equals + 1, stop, frame);
      const name = variableName(tokens[target] as Token);
      if (frame.locals.has(name)) frame.locals.set(name, value);
      else this.scope.variables.set(name, value);
      return stop;
    }
    await this.evaluatePipeline(i, stop, frame);
    return stop;
  }

  private async walkForeach(
    open: number,
    close: number,
    bodyOpen: number,
    bodyClose: number,
    frame: Frame,
  ): Promise<void> {
    const tokens = this.tokens;
    let v = open + 1;
    while (v < close && isTrivia(tokens[v] as Token)) v++;
    let inWord = v + 1;
    while (inWord < close && isTrivia(tokens[inWord] as Token)) inWord++;
    const variable = tokens[v] as Token;
    if (
      variable.kind !== 'variable' ||
      (tokens[inWord] as Token).kind !== 'word' ||
      (tokens[inWord] as Token).text.toLowerCase() !== 'in'
    ) {
      await this.walkBlock(bodyOpen + 1, bodyClose, frame);
      return;
    }
    const collection = await this.evaluatePipeline(inWord + 1, close, frame);
    const locals = new Map(frame.locals);
    locals.set(
      variableName(variable),
      collection.known ? { ...collection, each: true } : collection,
    );
    await this.walkBlock(bodyOpen + 1, bodyClose, { path: frame.path, locals });
  }

  private lookup(name: string, frame: Frame): ScriptValue {
    if (name === 'psscriptroot') return strings([dirname(frame.path)]);
    if (name === 'pscommandpath') return strings([frame.path]);
    if (name === 'psitem') name = '_';
    const local = frame.locals.get(name);
    if (local !== undefined) return local;
    const value = this.scope.variables.get(name);
    if (value !== undefined) return value;
    return UNKNOWN(`$${name} is not assigned where the reader can see it`);
  }

  /** The inside of `( )`, `@( )` or `$( )`: the output of each statement, in order. */
  private async evaluateStatements(start: number, end: number, frame: Frame): Promise<ScriptValue> {
    const tokens = this.tokens;
    const values: ScriptValue[] = [];
    let i = start;
    while (i < end) {
      const token = tokens[i] as Token;
      if (isTrivia(token) || token.kind === 'semicolon') {
        i++;
        continue;
      }
      const stop = statementEnd(tokens, i, end);
      const value = await this.evaluatePipeline(i, stop, frame);
      if (!value.known) return value;
      values.push(value);
      i = Math.max(stop, i + 1);
    }
    if (values.length === 1) return values[0] as ScriptValue;
    if (values.some((value) => value.known && value.each === true))
      return UNKNOWN(this.text(start, end));
    return {
      known: true,
      elements: values.flatMap((value) => (value.known ? value.elements : [])),
    };
  }

  /** `a | b | c`: each element gets the previous one's output. */
  private async evaluatePipeline(start: number, end: number, frame: Frame): Promise<ScriptValue> {
    const elements = split(this.tokens, start, end, (t) => t.kind === 'pipe');
    let value: ScriptValue | undefined;
    for (const [from, to] of elements) value = await this.evaluateElement(from, to, frame, value);
    return value ?? UNKNOWN('an empty pipeline');
  }

  private async evaluateElement(
    start: number,
    end: number,
    frame: Frame,
    input: ScriptValue | undefined,
  ): Promise<ScriptValue> {
    const tokens = this.tokens;
    let first = start;
    while (first < end && isTrivia(tokens[first] as Token)) first++;
    if (first >= end) return UNKNOWN('an empty pipeline element');
    const token = tokens[first] as Token;
    const command = token.kind === 'word' ? token.text.toLowerCase() : '';
    if (CHILD_ITEM_COMMANDS.has(command)) return this.getChildItem(first + 1, end, frame);
    if (FOREACH_COMMANDS.has(command)) return this.forEachObject(first + 1, end, frame, input);
    if (command === 'join-path') return this.joinPath(first + 1, end, frame);
    if (command === 'split-path') return this.splitPath(first + 1, end, frame);
    if (command === 'resolve-path' || command === 'convert-path') {
      const args = parseArguments(tokens, first + 1, end, ['path', 'literalpath'], []);
      const value = args.named.get('path') ?? args.named.get('literalpath') ?? args.positional[0];
      return value === undefined ? UNKNOWN(command) : this.evaluateValue(value, frame, true);
    }
    if (command === 'where-object' || command === 'where' || command === '?')
      return this.whereObject(first + 1, end, frame, input);
    if (command === 'sort-object' || command === 'sort') {
      return input ?? UNKNOWN('Sort-Object without input');
    }
    if (command === 'select-object' || command === 'select') {
      const args = parseArguments(tokens, first + 1, end, ['expandproperty'], []);
      const property = args.named.get('expandproperty');
      if (input === undefined || property === undefined || property.length !== 1)
        return UNKNOWN(this.text(first, end));
      const name = await this.evaluateValue(property, frame, true);
      if (!name.known || name.elements.length !== 1 || name.elements[0]?.kind !== 'string')
        return UNKNOWN(this.text(first, end));
      return this.member(input, name.elements[0].value);
    }
    if (command === 'write-output' || command === 'echo') {
      const args = parseArguments(tokens, first + 1, end, ['inputobject'], []);
      const value = args.named.get('inputobject') ?? args.positional[0];
      return value === undefined ? UNKNOWN(command) : this.evaluateValue(value, frame, true);
    }
    if (
      token.kind === 'word' &&
      !/^[-\d.'"+]/.test(token.text) &&
      parseNumberLiteral(token.text) === undefined
    ) {
      // Some other command: what it returns is only known when it runs. Dot-sources in its
      // script block arguments are reported as gaps afterwards.
      return UNKNOWN(`the output of ${token.text}`);
    }
    return this.evaluateExpression(first, end, frame);
  }

  /** `a, b + c`: commas build arrays, `+` joins them. */
  private async evaluateExpression(start: number, end: number, frame: Frame): Promise<ScriptValue> {
    const parts = split(this.tokens, start, end, (t) => t.kind === 'comma');
    const elements: ScriptElement[] = [];
    for (const [from, to] of parts) {
      const sums = split(this.tokens, from, to, (t) => t.kind === 'word' && t.text === '+');
      for (const [a, b] of sums) {
        const groups = argumentGroups(this.tokens, a, b);
        if (groups.length !== 1) return UNKNOWN(this.text(start, end));
        const value = await this.evaluateGroup(groups[0] as [number, number], frame, false);
        if (!value.known) return value;
        if (value.each === true && (parts.length > 1 || sums.length > 1))
          return UNKNOWN(this.text(start, end));
        if (parts.length === 1 && sums.length === 1) return value;
        elements.push(...value.elements);
      }
    }
    return { known: true, elements };
  }

  /** A command argument: a comma list of glued groups, bare words taken as strings. */
  private async evaluateValue(
    groups: Array<[number, number]>,
    frame: Frame,
    bare: boolean,
  ): Promise<ScriptValue> {
    if (groups.length === 1) return this.evaluateGroup(groups[0] as [number, number], frame, bare);
    const elements: ScriptElement[] = [];
    for (const group of groups) {
      const value = await this.evaluateGroup(group, frame, bare);
      if (!value.known) return value;
      if (value.each === true) return UNKNOWN(this.text(group[0], group[1]));
      elements.push(...value.elements);
    }
    return { known: true, elements };
  }

  /** Tokens glued together: `$PSScriptRoot\Public\*.ps1`, `"$root/x"`, `$file.FullName`, `(expr).BaseName`. */
  private async evaluateGroup(
    [start, end]: [number, number],
    frame: Frame,
    bare: boolean,
  ): Promise<ScriptValue> {
    const tokens = this.tokens;
    let value: ScriptValue | undefined;
    let i = start;
    while (i < end) {
      const token = tokens[i] as Token;
      let part: ScriptValue;
      let next = i + 1;
      const member = tokens[i + 1] as Token | undefined;
      if (
        token.kind === 'variable' &&
        variableName(token) === 'myinvocation' &&
        member?.kind === 'word' &&
        member.start === token.end &&
        /^\.MyCommand\.(Path|Definition)$/i.test(member.text)
      ) {
        // The classic way to find one's own file before $PSScriptRoot existed.
        part = strings([frame.path]);
        next = i + 2;
      } else if (token.kind === 'variable') part = this.lookup(variableName(token), frame);
      else if (token.kind === 'string') part = this.interpolate(token, frame);
      else if (
        token.kind === 'open' &&
        token.match !== undefined &&
        token.text !== '{' &&
        token.text !== '@{' &&
        token.text !== '['
      ) {
        part = await this.evaluateStatements(i + 1, token.match, frame);
        next = token.match + 1;
      } else if (token.kind === 'word' && value !== undefined && /^\.[\p{L}_]/u.test(token.text)) {
        // Member access glued to what precedes it: `.FullName`, `.BaseName.Trim` is not followed.
        const members = token.text.slice(1).split('.');
        let current: ScriptValue = value;
        for (const member of members) current = this.member(current, member);
        value = current;
        i = next;
        continue;
      } else if (token.kind === 'word' && (bare || value !== undefined)) {
        part = strings([token.text.replace(/`(.)/g, '$1')]);
      } else return UNKNOWN(this.text(start, end));
      value = value === undefined ? part : concatenate(value, part);
      if (!value.known) return value;
      i = next;
    }
    return value ?? UNKNOWN('nothing');
  }

  private member(value: ScriptValue, name: string): ScriptValue {
    if (!value.known) return value;
    const key = name.toLowerCase();
    const elements: ScriptElement[] = [];
    for (const element of value.elements) {
      if (element.kind === 'item') {
        const item = element.item;
        if (key === 'fullname' || key === 'pspath')
          elements.push({ kind: 'string', value: item.fullName });
        else if (key === 'name') elements.push({ kind: 'string', value: item.name });
        else if (key === 'basename')
          elements.push({
            kind: 'string',
            value: item.directory ? item.name : item.name.replace(/\.[^.]*$/, ''),
          });
        else return UNKNOWN(`.${name} of a file`);
      } else if (key === 'path' || key === 'providerpath') elements.push(element);
      else return UNKNOWN(`.${name} of a string`);
    }
    return { known: true, elements, ...(value.each === true ? { each: true } : {}) };
  }

  /** Expands `$name`, `${name}`, `$($name)` and `$($script:name)` in a double-quoted string. */
  private interpolate(token: Token, frame: Frame): ScriptValue {
    const text = token.value ?? '';
    if (token.expandable !== true) return strings([text]);
    const pattern =
      /\$\(\s*\$([\p{L}\p{N}_:]+)\s*\)|\$\{([^}]+)\}|\$([\p{L}\p{N}_]+(?::[\p{L}\p{N}_]+)?)|\$\(/gu;
    let results = [''];
    let each = false;
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      if (match[0] === '$(') return UNKNOWN(`the string ${token.text}`);
      const raw = (match[1] ?? match[2] ?? match[3] ?? '').toLowerCase();
      const name = raw.replace(/^(script|local|private|using):/, '');
      const value = this.lookup(name, frame);
      if (!value.known) return value;
      const parts: string[] = [];
      for (const element of value.elements) {
        if (element.kind === 'string') parts.push(element.value);
        else parts.push(element.item.fullName);
      }
      // An array in a string is joined with spaces; only loop alternatives expand one by one.
      if (parts.length !== 1 && value.each !== true) return UNKNOWN(`the string ${token.text}`);
      if (value.each === true) each = true;
      const literal = text.slice(last, match.index);
      results = results.flatMap((prefix) => parts.map((part) => prefix + literal + part));
      last = (match.index ?? 0) + match[0].length;
    }
    const tail = text.slice(last);
    return strings(
      results.map((prefix) => prefix + tail),
      each,
    );
  }

  /** Paths as PowerShell's file system provider takes them: either separator, relative to the file's folder. */
  private toPaths(value: ScriptValue, frame: Frame): string[] | undefined {
    if (!value.known) return undefined;
    const paths: string[] = [];
    for (const element of value.elements) {
      if (element.kind === 'item') {
        if (!element.item.directory) paths.push(element.item.fullName);
        continue;
      }
      const written = element.value.replace(/\\/g, '/');
      paths.push(
        isAbsolute(written) ? posix.normalize(written) : resolve(dirname(frame.path), written),
      );
    }
    return paths;
  }

  private async getChildItem(start: number, end: number, frame: Frame): Promise<ScriptValue> {
    const args = parseArguments(
      this.tokens,
      start,
      end,
      CHILD_ITEM_PARAMETERS,
      CHILD_ITEM_SWITCHES,
    );
    const described = `Get-ChildItem ${this.text(start, end)}`;
    if (args.switches.has('name') || args.named.has('attributes') || args.switches.has('hidden'))
      return UNKNOWN(described);
    const pathGroups =
      args.named.get('path') ?? args.named.get('literalpath') ?? args.positional[0];
    if (pathGroups === undefined) return UNKNOWN(`${described} (the current folder)`);
    const pathValue = await this.evaluateValue(pathGroups, frame, true);
    if (!pathValue.known) return UNKNOWN(`${described}: ${pathValue.why}`);
    const written = pathValue.elements.map((e) =>
      e.kind === 'string' ? e.value : e.item.fullName,
    );
    // A relative path is relative to the current location, which the module does not decide.
    if (written.some((p) => !isAbsolute(p.replace(/\\/g, '/'))))
      return UNKNOWN(`${described} (a path relative to the current location)`);
    const paths = written.map((p) => posix.normalize(p.replace(/\\/g, '/')));
    if (paths.some((p) => /[*?[]/.test(dirname(p))))
      return UNKNOWN(`${described} (a wildcard before the last path segment)`);
    const stringsOf = async (name: string): Promise<string[] | undefined> => {
      const groups = args.named.get(name) ?? (name === 'filter' ? args.positional[1] : undefined);
      if (groups === undefined) return [];
      const value = await this.evaluateValue(groups, frame, true);
      if (!value.known || value.each === true || value.elements.some((e) => e.kind !== 'string'))
        return undefined;
      return value.elements.map((e) => (e as { value: string }).value);
    };
    const filter = await stringsOf('filter');
    const include = await stringsOf('include');
    const exclude = await stringsOf('exclude');
    const depthText = await stringsOf('depth');
    if (
      filter === undefined ||
      include === undefined ||
      exclude === undefined ||
      depthText === undefined
    )
      return UNKNOWN(described);
    if (filter.length > 1) return UNKNOWN(described);
    const depth = depthText.length === 1 ? Number(depthText[0]) : undefined;
    if (depth !== undefined && !Number.isInteger(depth)) return UNKNOWN(described);
    const listed = await listChildItems({
      paths,
      ...(filter[0] === undefined ? {} : { filter: filter[0] }),
      include,
      exclude,
      recurse: args.switches.has('recurse'),
      ...(depth === undefined ? {} : { depth }),
      ...(args.switches.has('file')
        ? { only: 'file' as const }
        : args.switches.has('directory')
          ? { only: 'directory' as const }
          : {}),
      force: args.switches.has('force'),
      budget: this.scope.budget,
    });
    if (listed.truncated) this.scope.truncated = true;
    return {
      known: true,
      elements: listed.items.map((item) => ({ kind: 'item', item })),
      ...(pathValue.each === true ? { each: true } : {}),
    };
  }

  private async joinPath(start: number, end: number, frame: Frame): Promise<ScriptValue> {
    const args = parseArguments(
      this.tokens,
      start,
      end,
      ['path', 'childpath', 'additionalchildpath', 'resolve'],
      ['resolve'],
    );
    const pieces = [
      args.named.get('path') ?? args.positional[0],
      args.named.get('childpath') ?? args.positional[1],
      ...(args.named.get('additionalchildpath') === undefined
        ? args.positional.slice(2)
        : [args.named.get('additionalchildpath')]),
    ];
    let results: string[] = [''];
    let each = false;
    for (const piece of pieces) {
      if (piece === undefined) return UNKNOWN(`Join-Path ${this.text(start, end)}`);
      const value = await this.evaluateValue(piece, frame, true);
      if (!value.known) return value;
      if (value.each === true) each = true;
      const parts = value.elements.map((e) => (e.kind === 'string' ? e.value : e.item.fullName));
      results = results.flatMap((prefix) =>
        parts.map((part) =>
          prefix === '' ? part : `${prefix.replace(/[\\/]+$/, '')}/${part.replace(/^[\\/]+/, '')}`,
        ),
      );
    }
    return strings(results, each);
  }

  /** `Split-Path -Parent $x` (the default) and `Split-Path -Leaf $x`. */
  private async splitPath(start: number, end: number, frame: Frame): Promise<ScriptValue> {
    const args = parseArguments(
      this.tokens,
      start,
      end,
      ['path', 'literalpath', 'parent', 'leaf'],
      ['parent', 'leaf'],
    );
    const given = args.named.get('path') ?? args.named.get('literalpath') ?? args.positional[0];
    if (given === undefined || args.positional.length > 1)
      return UNKNOWN(`Split-Path ${this.text(start, end)}`);
    const value = await this.evaluateValue(given, frame, true);
    if (!value.known) return value;
    const leaf = args.switches.has('leaf');
    const parts = value.elements.map((element) => {
      const path = (element.kind === 'string' ? element.value : element.item.fullName).replace(
        /[\\/]+$/,
        '',
      );
      const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
      return leaf ? path.slice(cut + 1) : cut <= 0 ? path.slice(0, cut + 1) : path.slice(0, cut);
    });
    return strings(parts, value.each);
  }

  private async forEachObject(
    start: number,
    end: number,
    frame: Frame,
    input: ScriptValue | undefined,
  ): Promise<ScriptValue> {
    const tokens = this.tokens;
    const args = parseArguments(
      tokens,
      start,
      end,
      ['process', 'membername', 'begin', 'end', 'parallel'],
      [],
    );
    if (args.named.has('parallel')) return UNKNOWN('ForEach-Object -Parallel');
    const process = args.named.get('process') ?? args.positional[0];
    if (process === undefined || process.length !== 1) return UNKNOWN('ForEach-Object');
    const [from, to] = process[0] as [number, number];
    const open = tokens[from] as Token;
    const locals = new Map(frame.locals);
    const bound: ScriptValue =
      input === undefined
        ? UNKNOWN('no pipeline input')
        : input.known
          ? { ...input, each: true }
          : input;
    locals.set('_', bound);
    const inner: Frame = { path: frame.path, locals };
    if (open.kind !== 'open' || open.text !== '{' || open.match !== to - 1) {
      // `ForEach-Object BaseName`: the member of each input.
      const name = await this.evaluateValue(process, frame, true);
      if (input === undefined || !name.known || name.elements[0]?.kind !== 'string')
        return UNKNOWN('ForEach-Object');
      return this.member(input, name.elements[0].value);
    }
    // `{ $_.BaseName }`: one expression is the block's output; statements run for their effects.
    let first = from + 1;
    while (first < to - 1 && isTrivia(tokens[first] as Token)) first++;
    const stop = statementEnd(tokens, first, to - 1);
    let rest = stop;
    while (
      rest < to - 1 &&
      (isTrivia(tokens[rest] as Token) || (tokens[rest] as Token).kind === 'semicolon')
    )
      rest++;
    const single = rest >= to - 1 && (tokens[first] as Token).kind === 'variable';
    if (single && (tokens[first + 1] as Token | undefined)?.kind !== 'equals') {
      const value = await this.evaluatePipeline(first, stop, inner);
      return value.known ? { known: true, elements: value.elements } : value;
    }
    await this.walkBlock(from + 1, to - 1, inner);
    return UNKNOWN('the output of ForEach-Object');
  }

  /**
   * `Where-Object { $_.Name -notlike '*.Tests.ps1' }` and `Where-Object Name -NotLike '...'`:
   * comparisons of a property (or the item) with a constant, joined by `-and`/`-or`, and
   * `-not $_.PSIsContainer`. Anything else leaves the filtered list unknown.
   */
  private async whereObject(
    start: number,
    end: number,
    frame: Frame,
    input: ScriptValue | undefined,
  ): Promise<ScriptValue> {
    const tokens = this.tokens;
    const described = `Where-Object ${this.text(start, end)}`;
    if (input === undefined || !input.known) return input ?? UNKNOWN(described);
    let first = start;
    while (first < end && isTrivia(tokens[first] as Token)) first++;
    const open = tokens[first] as Token;
    let words: Token[];
    if (open.kind === 'open' && open.text === '{' && open.match !== undefined) {
      words = tokens.slice(first + 1, open.match).filter((t) => !isTrivia(t));
    } else {
      // The simplified form: `Name -NotLike '*.Tests.ps1'`, a property with no `$_.`.
      words = tokens.slice(first, end).filter((t) => !isTrivia(t));
      if (words[0]?.kind === 'word' && /^-property$/i.test(words[0].text)) words = words.slice(1);
      const property = words[0];
      if (property?.kind !== 'word' || property.text.startsWith('-')) return UNKNOWN(described);
      words = [
        { ...property, kind: 'variable', value: '_', end: property.start },
        { ...property, text: `.${property.text}` },
        ...words.slice(1),
      ];
    }
    const test = compileCondition(words);
    if (test === undefined) return UNKNOWN(described);
    const kept: ScriptElement[] = [];
    for (const element of input.elements) {
      const verdict = test(element);
      if (verdict === undefined) return UNKNOWN(described);
      if (verdict) kept.push(element);
    }
    return { known: true, elements: kept, ...(input.each === true ? { each: true } : {}) };
  }

  private async dotSource(dot: number, end: number, frame: Frame): Promise<void> {
    const tokens = this.tokens;
    const groups = argumentGroups(tokens, dot + 1, end);
    const [first] = groups;
    const line = (tokens[dot] as Token).line;
    const construct = this.text(dot, end);
    if (first === undefined) return;
    const head = tokens[first[0]] as Token;
    const helper =
      head.kind === 'word' && first[1] === first[0] + 1
        ? this.scope.helpers.get(head.text.toLowerCase())
        : undefined;
    let value: ScriptValue;
    if (helper !== undefined) {
      const parameterNames = [helper.parameter];
      const args = parseArguments(tokens, first[1], end, parameterNames, []);
      const given = args.named.get(helper.parameter) ?? args.positional[helper.position];
      if (given === undefined) {
        this.gap(line, construct);
        return;
      }
      value = await this.evaluateValue(given, frame, true);
    } else {
      if (
        head.kind === 'word' &&
        first[1] === first[0] + 1 &&
        this.functions.some((fn) => fn.name.toLowerCase() === head.text.toLowerCase())
      ) {
        // A module function called with a dot: what it defines depends on its body.
        this.gap(line, construct);
        return;
      }
      value = await this.evaluateGroup(first, frame, true);
    }
    const paths = this.toPaths(value, frame);
    if (paths === undefined) {
      this.gap(line, construct + (value.known ? '' : ` (${value.why})`));
      return;
    }
    for (const path of paths) this.effects.loads.push({ path, line, construct });
  }

  private async exportMembers(command: number, end: number, frame: Frame): Promise<void> {
    const tokens = this.tokens;
    const args = parseArguments(
      tokens,
      command + 1,
      end,
      ['function', 'cmdlet', 'variable', 'alias'],
      [],
    );
    const exported = {
      line: (tokens[command] as Token).line,
      patterns: [] as string[],
      dynamic: [] as string[],
    };
    const groups = args.named.get('function') ?? args.positional[0] ?? [];
    const values = [];
    for (const group of groups) values.push(await this.evaluateGroup(group, frame, true));
    // `-Function $a.BaseName, 'x'` is a list holding an array, which PowerShell cannot bind to
    // [string[]]: the call fails and exports nothing. Only the engine says so for certain.
    if (groups.length > 1 && values.some((value) => value.known && value.elements.length !== 1)) {
      this.gap(exported.line, this.text(command, end), 'export');
      return;
    }
    this.effects.exports.push(exported);
    for (const [index, group] of groups.entries()) {
      const value = values[index] as ScriptValue;
      const names =
        value.known && value.each !== true && value.elements.every((e) => e.kind === 'string')
          ? value.elements.map((e) => (e as { value: string }).value)
          : undefined;
      if (names === undefined) exported.dynamic.push(this.text(group[0], group[1]));
      else exported.patterns.push(...names);
    }
  }
}

/** The property of a listed element a condition names; undefined when the reader cannot know it. */
function propertyOf(
  element: ScriptElement,
  name: string | undefined,
): string | boolean | undefined {
  if (element.kind === 'string') return name === undefined ? element.value : undefined;
  const item = element.item;
  switch (name?.toLowerCase()) {
    case undefined:
    case 'fullname':
    case 'pspath':
      return item.fullName;
    case 'name':
      return item.name;
    case 'basename':
      return item.directory ? item.name : item.name.replace(/\.[^.]*$/, '');
    case 'extension':
      return item.directory ? '' : (/\.[^.]*$/.exec(item.name)?.[0] ?? '');
    case 'psiscontainer':
      return item.directory;
    default:
      return undefined;
  }
}

type Condition = (element: ScriptElement) => boolean | undefined;

/** `$_.Name -like 'x'`, `-not $_.PSIsContainer`, joined by `-and`/`-or` (left to right, as PowerShell's equal precedence does). */
function compileCondition(words: readonly Token[]): Condition | undefined {
  const clauses: Condition[] = [];
  const joins: string[] = [];
  let i = 0;
  while (i < words.length) {
    let negate = false;
    while (words[i]?.kind === 'word' && /^(-not|!)$/i.test(words[i]!.text)) {
      negate = !negate;
      i++;
    }
    const subject = words[i];
    if (subject?.kind !== 'variable' || !['_', 'psitem'].includes(variableName(subject)))
      return undefined;
    i++;
    let property: string | undefined;
    const member = words[i];
    if (member?.kind === 'word' && member.text.startsWith('.') && member.start === subject.end) {
      property = member.text.slice(1);
      i++;
    }
    const operator = words[i];
    let clause: Condition;
    const match =
      operator?.kind === 'word'
        ? /^-([ci]?)(like|notlike|match|notmatch|eq|ne)$/i.exec(operator.text)
        : null;
    if (match !== null && match !== undefined) {
      const operand = words[i + 1];
      if (operand === undefined || (operand.kind !== 'string' && operand.kind !== 'word'))
        return undefined;
      if (operand.kind === 'string' && operand.expandable === true) return undefined;
      const pattern = operand.kind === 'string' ? (operand.value ?? '') : operand.text;
      const caseSensitive = match[1]?.toLowerCase() === 'c';
      const kind = (match[2] as string).toLowerCase();
      let compare: (text: string) => boolean;
      if (kind === 'like' || kind === 'notlike') {
        const wildcard = compileWildcard(pattern, { caseSensitive });
        compare = (text) => wildcard.test(text) === (kind === 'like');
      } else if (kind === 'match' || kind === 'notmatch') {
        // The module's pattern against its own file names, on the thread that serves: in
        // linear time, or not evaluated (a pattern RE2 cannot run leaves the filter unknown).
        let regex: LinearPattern;
        try {
          regex = compileLinearPattern(pattern, { ignoreCase: !caseSensitive });
        } catch {
          return undefined;
        }
        compare = (text) => regex.test(text) === (kind === 'match');
      } else {
        const fold = (text: string): string => (caseSensitive ? text : text.toLowerCase());
        compare = (text) => (fold(text) === fold(pattern)) === (kind === 'eq');
      }
      clause = (element) => {
        const value = propertyOf(element, property);
        return typeof value === 'string' ? compare(value) : undefined;
      };
      i += 2;
    } else {
      // A bare property: its truth (`$_.PSIsContainer`).
      clause = (element) => {
        const value = propertyOf(element, property);
        return typeof value === 'boolean' ? value : undefined;
      };
    }
    clauses.push(
      negate
        ? (element) => {
            const verdict = clause(element);
            return verdict === undefined ? undefined : !verdict;
          }
        : clause,
    );
    const join = words[i];
    if (join === undefined) break;
    if (join.kind !== 'word' || !/^-(and|or)$/i.test(join.text)) return undefined;
    joins.push(join.text.toLowerCase());
    i++;
    if (i >= words.length) return undefined;
  }
  if (clauses.length === 0) return undefined;
  return (element) => {
    let verdict = (clauses[0] as Condition)(element);
    for (let k = 1; k < clauses.length; k++) {
      const next = (clauses[k] as Condition)(element);
      if (verdict === undefined || next === undefined) return undefined;
      verdict = joins[k - 1] === '-and' ? verdict && next : verdict || next;
    }
    return verdict;
  };
}

function concatenate(a: ScriptValue, b: ScriptValue): ScriptValue {
  if (!a.known) return a;
  if (!b.known) return b;
  const left = a.elements.map((e) => (e.kind === 'string' ? e.value : e.item.fullName));
  const right = b.elements.map((e) => (e.kind === 'string' ? e.value : e.item.fullName));
  // Glued text is one string: only loop alternatives may multiply.
  if ((left.length !== 1 && a.each !== true) || (right.length !== 1 && b.each !== true))
    return UNKNOWN('an array glued to text');
  return strings(
    left.flatMap((l) => right.map((r) => l + r)),
    a.each === true || b.each === true,
  );
}
