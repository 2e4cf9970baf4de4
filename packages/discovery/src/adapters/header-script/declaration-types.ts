import type { Diagnostic, ParameterSpec, ToolAnnotations, ToolInputExample } from '@toolpack/core';

/**
 * The BASIC-style declaration grammar shared by script header comments and `.bas` files:
 *
 * ```
 * DESCRIPTION "What the tool does"
 * PARAM name [AS type [OF item-type]] [LIKE example] [DEFAULT value] [OPTIONAL] [ENUM [json, ...]] [DESCRIPTION "text"]
 * OUTPUT name [AS type [OF item-type]] [LIKE example] [OPTIONAL] [ENUM [json, ...]] [DESCRIPTION "text"]
 * EXAMPLE {"name": "value", ...} [DESCRIPTION "text"]
 * OPTIONS long-running, progress-resets-timeout
 * TIMEOUT 10m
 * ```
 *
 * - Keywords are case-insensitive; clauses after the name may come in any order, once each.
 * - `type`: `string` (the default, as in BotServer), `integer`, `number`, `boolean`, `array`,
 *   `object`; `.bas` files also accept `date` and `datetime` (strings in ISO 8601 form).
 *   `AS array OF integer` gives the items' type.
 * - `LIKE`/`DEFAULT` values are read as the declared type: `LIKE 5` and `LIKE "5"` both give
 *   the integer 5 for an integer parameter; arrays and objects are JSON (`LIKE ["a", "b"]`).
 * - `ENUM` takes a JSON array; for an array parameter it lists the allowed items.
 * - A parameter is required unless it says `OPTIONAL` or declares a `DEFAULT`.
 * - Strings are double-quoted; `\"` or `""` is a quote inside one, `\\` a backslash.
 *   A description may also be left unquoted: it then runs to the end of the line.
 * - BotServer's two-line form works too: a `DESCRIPTION` line right after a `PARAM` line
 *   that has none describes that parameter; any other `DESCRIPTION` describes the tool.
 * - `OUTPUT` lines declare the properties of the JSON object the tool prints (its output
 *   schema), as PARAM lines declare its arguments: same types, required unless `OPTIONAL`,
 *   no `DEFAULT`. A `DESCRIPTION` line right after one describes it.
 * - `EXAMPLE` gives the arguments of one worked call as a JSON object, in the order written;
 *   one that does not fit the input schema is dropped with a warning.
 * - `OPTIONS` turns on opt-ins by name (any case, `-`/`_` optional): `long-running` (calls
 *   take long; task-capable clients may run them as tasks) and `progress-resets-timeout`
 *   (each progress report restarts the call's timeout). `TIMEOUT` sets the call timeout:
 *   `90s`, `10m`, `1h`, `500ms`, or a bare number of seconds.
 */
export type DeclarationDialect = 'header' | 'basic';

/** One line of declaration text, its comment prefix already removed. */
export interface DeclarationLine {
  text: string;
  /** 1-based line in the file. */
  line: number;
}

export interface DeclaredParameter {
  spec: ParameterSpec;
  line: number;
}

export interface ParsedDeclarations {
  description?: string;
  descriptionLine?: number;
  parameters: DeclaredParameter[];
  /** From OUTPUT lines: the properties of the output schema, in source order. */
  outputs: DeclaredParameter[];
  /** From EXAMPLE lines, not yet checked against the input schema. */
  examples: DeclaredExample[];
  /** From OPTIONS lines. */
  longRunning?: true;
  progressResetsTimeout?: true;
  /** From a TIMEOUT line, in milliseconds. */
  timeoutMs?: number;
  diagnostics: Diagnostic[];
  /** From HINTS lines; empty when there are none. */
  annotations: ToolAnnotations;
  /** True when the text declares anything at all (a PARAM, DESCRIPTION, HINTS, OUTPUT, EXAMPLE, OPTIONS or TIMEOUT line). */
  declaresTool: boolean;
  /** Line of the first declaration, for diagnostics about the tool as a whole. */
  firstLine?: number;
}

export interface DeclaredExample {
  example: ToolInputExample;
  line: number;
}

/** A problem with one declaration line. */
export interface DeclarationProblem {
  code: Diagnostic['code'];
  message: string;
  hint?: string;
  severity?: 'error' | 'warning';
}

export interface ParsedParamLine {
  spec: ParameterSpec;
  /** False when the line has no DESCRIPTION clause (the next line may supply it). */
  hasDescription: boolean;
  warnings: DeclarationProblem[];
}

export type ParamLineResult =
  { ok: true; value: ParsedParamLine } | { ok: false; problems: DeclarationProblem[] };

export interface ParseDeclarationsOptions {
  path: string;
  dialect: DeclarationDialect;
}
