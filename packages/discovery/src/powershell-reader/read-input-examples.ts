/**
 * Input examples from `.EXAMPLE` help: an example whose first line calls the command itself
 * with constant arguments becomes `{ arguments, description }`, bound the way PowerShell binds
 * a command line (named parameters and unique prefixes, aliases, `-Switch` and
 * `-Switch:$false`, positional arguments by `Position` or declaration order). Anything read
 * only at run time (variables, pipelines, subexpressions) keeps the example as help text only.
 */
import { createDiagnostic, validateArguments } from '@toolpack/core';
import type { Diagnostic, JsonSchema, ObjectJsonSchema, ToolInputExample } from '@toolpack/core';
import { coerceDeep, constantNumber } from './attribute-values.ts';
import type { CommentHelp } from './comment-help.ts';
import { isCommonParameterName } from './common-parameters.ts';
import { evaluateConstant, parseNumberLiteral } from './constant-value.ts';
import { isSwitchType } from './map-powershell-type.ts';
import type { PsAttribute, PsParameter } from './reader.ts';
import { tokenizePowerShell } from './tokenizer.ts';
import type { Token } from './tokenizer.ts';

export interface ReadInputExamplesInput {
  path: string;
  /** `the script` or `the function Get-Widget`, for messages. */
  what: string;
  sourceKind: 'script' | 'ps-module';
  /** The script's base name or the function's name. */
  commandName: string;
  help?: CommentHelp;
  parameters: readonly PsParameter[];
  blockAttributes: readonly PsAttribute[];
  inputSchema: ObjectJsonSchema;
}

export interface ReadInputExamples {
  inputExamples: ToolInputExample[];
  diagnostics: Diagnostic[];
}

/** A prompt before the command, as Get-Help also drops it: `PS C:\>`, `PS>`. */
const PROMPT = /^\s*PS(?:\s[^>]*)?>\s*/;
const DASHES = /^[-\u2013\u2014\u2015]/;

/** Why an example cannot become an input example. `silent`: it was never meant as one. */
class NotAnExample extends Error {
  readonly silent: boolean;
  constructor(message: string, silent: boolean) {
    super(message);
    this.silent = silent;
  }
}

function quiet(): NotAnExample {
  return new NotAnExample('', true);
}

/** Whether the first word of the line names this command: `Get-Widget`, `.\Get-Widget.ps1`, `Module\Get-Widget`. */
function callsCommand(text: string, input: ReadInputExamplesInput): boolean {
  const leaf = text.replace(/^.*[\\/]/, '').toLowerCase();
  const name = input.commandName.toLowerCase();
  if (input.sourceKind === 'script') return leaf === name || leaf === `${name}.ps1`;
  return leaf === name && !/\.ps1$/i.test(text);
}

interface ParameterInfo {
  name: string;
  aliases: string[];
  isSwitch: boolean;
  position?: number;
}

function describeParameters(input: ReadInputExamplesInput): {
  parameters: ParameterInfo[];
  positional: ParameterInfo[];
} {
  const parameters = input.parameters.map((parameter): ParameterInfo => {
    const attributes = parameter.attributes.filter((a) => a.key === 'parameter');
    const position = attributes
      .map((a) => constantNumber(a.named.get('position')))
      .find((n) => n !== undefined);
    const aliases = parameter.attributes
      .filter((a) => a.key === 'alias')
      .flatMap((a) =>
        a.positional.flatMap((arg) => aliasNames(arg.value.constant ? arg.value.value : undefined)),
      );
    const info: ParameterInfo = {
      name: parameter.name,
      aliases,
      isSwitch: isSwitchType(parameter.typeNames[0]),
    };
    if (position !== undefined) info.position = position;
    return info;
  });
  const binding = input.blockAttributes.find((a) => a.key === 'cmdletbinding');
  const positionalBinding = binding?.named.get('positionalbinding');
  const noImplicit =
    positionalBinding !== undefined && /^\$?false$|^0$/i.test(positionalBinding.text);
  // The engine numbers parameters itself only for a command with no named parameter set.
  const namedSets = input.parameters.some((parameter) =>
    parameter.attributes.some((attribute) => {
      const set =
        attribute.key === 'parameter' ? attribute.named.get('parametersetname') : undefined;
      return set !== undefined && !/^['"]?__allparametersets['"]?$/i.test(set.text);
    }),
  );
  let positional = parameters.filter((p) => p.position !== undefined);
  // Without any Position, every parameter but a switch is positional in declaration order.
  if (positional.length === 0 && !noImplicit && !namedSets)
    positional = parameters.filter((p) => !p.isSwitch);
  else positional = [...positional].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  return { parameters, positional };
}

function aliasNames(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** The parameter a `-Name` refers to: an exact name or alias, else the one it is a prefix of. */
function findParameter(written: string, parameters: readonly ParameterInfo[]): ParameterInfo {
  const key = written.toLowerCase();
  const exact = parameters.find(
    (p) => p.name.toLowerCase() === key || p.aliases.some((a) => a.toLowerCase() === key),
  );
  if (exact !== undefined) return exact;
  const matches = parameters.filter((p) => p.name.toLowerCase().startsWith(key));
  if (matches.length === 1) return matches[0] as ParameterInfo;
  if (isCommonParameterName(key)) throw quiet();
  throw new NotAnExample(
    matches.length === 0
      ? `it passes -${written}, which is not a parameter`
      : `-${written} could be any of ${matches.map((m) => `-${m.name}`).join(', ')}`,
    false,
  );
}

/** Reads one command-mode argument starting at `index`: a value, or a comma list of values. */
function readValue(tokens: readonly Token[], index: number): { value: unknown; next: number } {
  const values: unknown[] = [];
  let i = index;
  for (;;) {
    const token = tokens[i];
    if (token === undefined) throw quiet();
    let end = i + 1;
    if (token.kind === 'open' && token.match !== undefined) end = token.match + 1;
    if (token.kind === 'word') {
      // A bare word is a string, or a number when it reads as one, as in command mode.
      if (/^[&@$]|[`$(]/.test(token.text)) throw quiet();
      values.push(parseNumberLiteral(token.text) ?? token.text);
    } else if (token.kind === 'string' || token.kind === 'variable' || token.kind === 'open') {
      if (token.kind === 'open' && token.text === '{') throw quiet();
      const result = evaluateConstant(tokens, i, end);
      if (!result.constant) throw quiet();
      values.push(result.value);
    } else throw quiet();
    // Glued tokens (`a$b`, `'a'b`) form one argument PowerShell builds at run time.
    if (
      (tokens[end] as Token | undefined)?.start === tokens[end - 1]?.end &&
      isValueToken(tokens[end])
    )
      throw quiet();
    i = end;
    if ((tokens[i] as Token | undefined)?.kind !== 'comma') break;
    i += 1;
  }
  return { value: values.length === 1 ? values[0] : values, next: i };
}

function isValueToken(token: Token | undefined): boolean {
  return (
    token !== undefined &&
    (token.kind === 'word' ||
      token.kind === 'string' ||
      token.kind === 'variable' ||
      token.kind === 'open')
  );
}

/** Binds one example line to the command's parameters: argument names (as declared) to values. */
function bindLine(line: string, input: ReadInputExamplesInput): Record<string, unknown> {
  const { tokens, errors } = tokenizePowerShell(line);
  if (errors.length > 0) throw quiet();
  // One line: a comment can only end it. Slicing keeps the bracket indices (`match`) valid.
  const stop = tokens.findIndex((t) => t.kind === 'comment' || t.kind === 'end');
  const significant = tokens.slice(0, stop === -1 ? tokens.length : stop);
  let i = 0;
  let first = significant[0];
  if (first?.kind === 'word' && (first.text === '&' || first.text === '.'))
    first = significant[++i];
  if (first === undefined) throw quiet();
  const commandText =
    first.kind === 'string' ? (first.value ?? '') : first.kind === 'word' ? first.text : '';
  if (commandText === '' || !callsCommand(commandText, input)) throw quiet();
  const rest = significant;
  if (rest.some((t) => t.kind === 'pipe' || t.kind === 'semicolon' || t.kind === 'newline'))
    throw quiet();

  const { parameters, positional } = describeParameters(input);
  const bound: Record<string, unknown> = {};
  const positionalValues: unknown[] = [];
  let j = i + 1;
  while (j < rest.length) {
    const token = rest[j] as Token;
    if (
      token.kind === 'word' &&
      DASHES.test(token.text) &&
      token.text.length > 1 &&
      parseNumberLiteral(token.text) === undefined
    ) {
      const written = token.text.replace(DASHES, '');
      const colon = written.indexOf(':');
      const parameter = findParameter(colon === -1 ? written : written.slice(0, colon), parameters);
      if (Object.hasOwn(bound, parameter.name))
        throw new NotAnExample(`it passes -${parameter.name} twice`, false);
      if (colon !== -1) {
        // `-Name:value`: the value is glued after the colon, in this token or the next.
        const attached = written.slice(colon + 1);
        if (attached !== '') {
          bound[parameter.name] = parseNumberLiteral(attached) ?? attached;
          j += 1;
        } else {
          const read = readValue(rest, j + 1);
          bound[parameter.name] = read.value;
          j = read.next;
        }
        continue;
      }
      if (parameter.isSwitch) {
        bound[parameter.name] = true;
        j += 1;
        continue;
      }
      if (j + 1 >= rest.length)
        throw new NotAnExample(`-${parameter.name} has no value after it`, false);
      const read = readValue(rest, j + 1);
      bound[parameter.name] = read.value;
      j = read.next;
      continue;
    }
    const read = readValue(rest, j);
    positionalValues.push(read.value);
    j = read.next;
  }
  const free = positional.filter((p) => !Object.hasOwn(bound, p.name));
  if (positionalValues.length > free.length)
    throw new NotAnExample(
      `it passes ${positionalValues.length} positional values, but only ${free.length} parameters take one`,
      false,
    );
  positionalValues.forEach((value, index) => {
    bound[(free[index] as ParameterInfo).name] = value;
  });
  return bound;
}

/** The values as the tool's input schema types them: `3` for a string parameter is `"3"`. */
function coerceArguments(
  bound: Record<string, unknown>,
  schema: ObjectJsonSchema,
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const args: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(bound)) {
    const property = properties[name];
    if (property === undefined) {
      throw new NotAnExample(`-${name} is not in the tool's input schema`, false);
    }
    const type = property.type;
    const coerced =
      typeof type === 'string' && value !== null
        ? coerceDeep(value, property as unknown as Parameters<typeof coerceDeep>[1])
        : { ok: true as const, value };
    args[name] = coerced.ok ? coerced.value : value;
  }
  return args;
}

/** The tool's input examples from its `.EXAMPLE` sections, in source order. */
export function readInputExamples(input: ReadInputExamplesInput): ReadInputExamples {
  const inputExamples: ToolInputExample[] = [];
  const diagnostics: Diagnostic[] = [];
  const help = input.help;
  if (help === undefined) return { inputExamples, diagnostics };
  help.examples.forEach((text, index) => {
    const line = help.lines.examples[index];
    const [first = '', ...others] = text.split('\n');
    if (/`\s*$/.test(first)) return;
    try {
      const bound = bindLine(first.replace(PROMPT, ''), input);
      const args = coerceArguments(bound, input.inputSchema);
      const validation = validateArguments(input.inputSchema, args);
      if (!validation.valid) throw new NotAnExample(validation.message, false);
      const example: ToolInputExample = { arguments: args };
      const description = others
        .map((other) => other.trim())
        .filter((other) => other !== '')
        .join(' ');
      if (description !== '') example.description = description;
      inputExamples.push(example);
    } catch (error) {
      if (!(error instanceof NotAnExample)) throw error;
      if (error.silent) return;
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_EXAMPLE_IGNORED',
          `Example ${index + 1} of ${input.what} calls it, but ${error.message}, so it is not one of the tool's input examples.`,
          { path: input.path, ...(line === undefined ? {} : { line }) },
          'Fix the example so it passes only declared parameters with values that fit them.',
        ),
      );
    }
  });
  return { inputExamples, diagnostics };
}
