import { createDiagnostic, findParameterProblems } from '@toolpack/core';
import type { Diagnostic, ParameterSpec, ParameterType, ValueSpec } from '@toolpack/core';
import { parseNumberLiteral } from './constant-value.ts';
import type { ConstantResult } from './constant-value.ts';
import { convertDotNetPattern } from './dotnet-regex.ts';
import {
  ARRAY,
  BOOLEAN,
  INTEGER,
  NUMBER,
  OBJECT,
  STRING,
  isSwitchType,
  mapPowerShellType,
} from './map-powershell-type.ts';
import type { AttributeArgument, PsAttribute, PsParameter } from './reader.ts';

/** PowerShell's common parameters: added by PowerShell to every advanced script or function. */
const COMMON_PARAMETERS = [
  'Verbose',
  'Debug',
  'ErrorAction',
  'WarningAction',
  'InformationAction',
  'ProgressAction',
  'ErrorVariable',
  'WarningVariable',
  'InformationVariable',
  'OutVariable',
  'OutBuffer',
  'PipelineVariable',
];
const SHOULD_PROCESS_PARAMETERS = ['WhatIf', 'Confirm'];

export interface ConvertParametersInput {
  path: string;
  /** `the script` or `the function Get-Widget`, for messages. */
  what: string;
  parameters: readonly PsParameter[];
  /** `[CmdletBinding()]` and friends on the param block. */
  blockAttributes: readonly PsAttribute[];
  /** A description per parameter from help or comments, empty when there is none. */
  descriptions: readonly string[];
}

export interface ConvertedParameters {
  parameters: ParameterSpec[];
  diagnostics: Diagnostic[];
}

function isTruthy(argument: AttributeArgument | undefined): boolean {
  if (argument === undefined) return false;
  if (!argument.value.constant) return !/^\$false$/i.test(argument.text);
  const value = argument.value.value;
  return (
    value === true ||
    (typeof value === 'number' && value !== 0) ||
    (typeof value === 'string' && value !== '')
  );
}

function constantString(result: ConstantResult | undefined): string | undefined {
  return result?.constant === true && typeof result.value === 'string' ? result.value : undefined;
}

function constantNumber(argument: AttributeArgument | undefined): number | undefined {
  if (argument === undefined || !argument.value.constant) return undefined;
  const value = argument.value.value;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parseNumberLiteral(value.trim());
  return undefined;
}

/** Converts an attribute value (ValidateSet entry, default) to the JSON type of its target. */
function coerce(value: unknown, type: ParameterType): { ok: true; value: unknown } | { ok: false } {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return { ok: true, value };
      if (typeof value === 'number') return { ok: true, value: String(value) };
      if (typeof value === 'boolean') return { ok: true, value: value ? 'True' : 'False' };
      return { ok: false };
    case 'integer':
    case 'number': {
      const number = typeof value === 'string' ? parseNumberLiteral(value.trim()) : value;
      if (typeof number !== 'number') return { ok: false };
      if (type === 'integer' && !Number.isInteger(number)) return { ok: false };
      return { ok: true, value: number };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (typeof value === 'number') return { ok: true, value: value !== 0 };
      return { ok: false };
    case 'array':
      return { ok: true, value: Array.isArray(value) ? value : [value] };
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { ok: true, value }
        : { ok: false };
  }
}

function coerceDeep(value: unknown, spec: ValueSpec): { ok: true; value: unknown } | { ok: false } {
  const coerced = coerce(value, spec.type);
  if (!coerced.ok || spec.type !== 'array' || spec.items === undefined) return coerced;
  const items: unknown[] = [];
  for (const item of coerced.value as unknown[]) {
    const inner = coerceDeep(item, spec.items);
    if (!inner.ok) return inner;
    items.push(inner.value);
  }
  return { ok: true, value: items };
}

function inferUntyped(parameter: PsParameter): ValueSpec {
  const range = parameter.attributes.find((attribute) => attribute.key === 'validaterange');
  if (range !== undefined && range.positional.length === 2) {
    const bounds = range.positional.map((argument) => constantNumber(argument));
    return bounds.every((bound) => bound === undefined || Number.isInteger(bound))
      ? INTEGER
      : NUMBER;
  }
  if (range !== undefined) return NUMBER;
  const value = parameter.defaultValue?.value;
  if (value?.constant === true) {
    const v = value.value;
    if (typeof v === 'number') return Number.isInteger(v) ? INTEGER : NUMBER;
    if (typeof v === 'boolean') return BOOLEAN;
    if (Array.isArray(v)) return ARRAY;
    if (typeof v === 'object' && v !== null) return OBJECT;
  }
  return STRING;
}

class ParameterConverter {
  readonly diagnostics: Diagnostic[] = [];
  private readonly path: string;
  private readonly what: string;

  constructor(path: string, what: string) {
    this.path = path;
    this.what = what;
  }

  report(
    severity: Diagnostic['severity'],
    code: Diagnostic['code'],
    message: string,
    line: number,
    hint?: string,
  ): void {
    this.diagnostics.push(
      createDiagnostic(severity, code, message, { path: this.path, line }, hint),
    );
  }

  convert(parameter: PsParameter, description: string): ParameterSpec | undefined {
    const name = parameter.name;
    const parameterAttributes = parameter.attributes.filter(
      (attribute) => attribute.key === 'parameter',
    );
    const mandatory = parameterAttributes.some((attribute) =>
      isTruthy(attribute.named.get('mandatory')),
    );
    const helpMessage = parameterAttributes
      .map((attribute) => constantString(attribute.named.get('helpmessage')?.value))
      .find((message) => message !== undefined && message.trim() !== '');
    const finalDescription = description !== '' ? description : (helpMessage?.trim() ?? '');

    if (finalDescription === '') {
      this.report(
        'error',
        'E_PARAMETER_NO_DESCRIPTION',
        `Parameter $${name} of ${this.what} (line ${parameter.line}) has no description.`,
        parameter.line,
        `Add ".PARAMETER ${name}" followed by a sentence to the comment-based help, or a "# ..." comment on the line above $${name}.`,
      );
    }

    const typeName = parameter.typeNames[0];
    const mapping = mapPowerShellType(typeName);
    if (mapping.kind === 'unsupported') {
      const message = `Parameter $${name} of ${this.what} has the type [${typeName}], which no JSON value can stand for.`;
      if (mandatory) {
        this.report(
          'error',
          'E_PARAMETER_TYPE',
          `${message} The parameter is mandatory, so the tool could never be called.`,
          parameter.line,
          'Take the value as a [string] (or several plain parameters) and build the object inside the script.',
        );
      } else {
        this.report(
          'warning',
          'W_PARAMETER_TYPE',
          `${message} It is left out of the tool's input schema.`,
          parameter.line,
          'Take the value as a [string] and build the object inside the script if clients should set it.',
        );
      }
      return undefined;
    }
    let base: ValueSpec;
    if (mapping.kind === 'untyped') {
      base = inferUntyped(parameter);
      this.report(
        'info',
        'I_UNTYPED_PARAMETER',
        `Parameter $${name} of ${this.what} has no type; it is described as ${base.type === 'integer' || base.type === 'array' || base.type === 'object' ? 'an' : 'a'} ${base.type}${typeName === undefined ? ' from its default and validation' : ''}.`,
        parameter.line,
        `Give it a type such as [string] or [int] for an exact schema.`,
      );
    } else {
      base = mapping.spec as ValueSpec;
      if (mapping.kind === 'as-string') {
        this.report(
          'info',
          'I_PARAMETER_AS_STRING',
          `Parameter $${name} of ${this.what} has the type [${typeName}]; clients send it as a string, which PowerShell converts.`,
          parameter.line,
        );
      }
    }

    const spec: ParameterSpec = { ...structuredClone(base), name };
    if (finalDescription !== '') spec.description = finalDescription;
    if (mandatory) spec.required = true;
    for (const attribute of parameter.attributes) this.applyValidation(spec, attribute, parameter);
    if (!mandatory) this.applyDefault(spec, parameter);
    // A switch left out binds as $false: that is the engine's binding, not an invented default.
    if (!mandatory && parameter.defaultValue === undefined && isSwitchType(typeName))
      spec.default = false;
    return spec;
  }

  private applyValidation(
    spec: ParameterSpec,
    attribute: PsAttribute,
    parameter: PsParameter,
  ): void {
    const name = parameter.name;
    const isArray = spec.type === 'array';
    // Element-wise validators apply to each item of a collection parameter.
    const element: ValueSpec | undefined = isArray ? spec.items : spec;
    const ignored = (why: string) =>
      this.report(
        'warning',
        'W_VALIDATION_IGNORED',
        `[${attribute.name}(...)] on $${name} is not part of the schema: ${why}.`,
        attribute.line,
        'PowerShell still checks it when the tool runs.',
      );
    // PowerShell checks each item of an [object[]]; the schema has no item type to hang it on.
    const untypedItems = () =>
      ignored(`the items of $${name} have no type, so the check has no place in the schema`);
    switch (attribute.key) {
      case 'validateset': {
        if (element === undefined) {
          untypedItems();
          return;
        }
        if (
          attribute.positional.length === 0 ||
          attribute.positional.some((argument) => !argument.value.constant)
        ) {
          ignored('its values are computed when the script runs');
          return;
        }
        if (element.type !== 'string' && element.type !== 'integer' && element.type !== 'number') {
          ignored(`a ${element.type} cannot have a list of allowed values in JSON Schema`);
          return;
        }
        let values: (string | number)[] = [];
        for (const argument of attribute.positional) {
          const raw = argument.value.constant ? argument.value.value : undefined;
          for (const value of Array.isArray(raw) ? raw : [raw]) {
            const coerced = coerce(value, element.type);
            if (!coerced.ok) {
              ignored(
                `the value ${JSON.stringify(value)} is not ${element.type === 'string' ? 'a string' : 'a number'}`,
              );
              return;
            }
            if (!values.includes(coerced.value as string | number))
              values.push(coerced.value as string | number);
          }
        }
        // PowerShell checks every ValidateSet: a second one narrows the first.
        const earlier = element.enum;
        if (earlier !== undefined) {
          const shared = earlier.filter((value) => values.includes(value as string | number));
          if (shared.length === 0) {
            ignored(
              'it shares no value with the earlier [ValidateSet()], so PowerShell accepts no value at all',
            );
            return;
          }
          values = shared as (string | number)[];
        }
        element.enum = values;
        return;
      }
      case 'validaterange': {
        if (element === undefined) {
          untypedItems();
          return;
        }
        if (element.type !== 'integer' && element.type !== 'number') {
          ignored(
            `a range only applies to numbers and $${name} is ${isArray ? 'an array of ' : 'a '}${element.type}`,
          );
          return;
        }
        if (attribute.positional.length === 1) {
          const kind = constantString(attribute.positional[0]?.value)?.toLowerCase();
          if (kind === 'positive') element.exclusiveMinimum = 0;
          else if (kind === 'nonnegative') narrowMinimum(element, 0);
          else if (kind === 'negative') element.exclusiveMaximum = 0;
          else if (kind === 'nonpositive') narrowMaximum(element, 0);
          else ignored('its range kind is not Positive, NonNegative, Negative or NonPositive');
          return;
        }
        const [low, high] = attribute.positional.map((argument) => constantNumber(argument));
        if (attribute.positional.length !== 2 || (low === undefined && high === undefined)) {
          ignored('its bounds are not constant numbers');
          return;
        }
        // Every range PowerShell checks, the type's own bounds ([byte]) included, narrows the schema.
        if (low !== undefined) narrowMinimum(element, low);
        if (high !== undefined) narrowMaximum(element, high);
        return;
      }
      case 'validatepattern': {
        if (element === undefined) {
          untypedItems();
          return;
        }
        if (element.type !== 'string') {
          ignored(
            `a pattern only applies to strings and $${name} is ${isArray ? 'an array of ' : 'a '}${element.type}`,
          );
          return;
        }
        const source = constantString(attribute.positional[0]?.value);
        if (source === undefined) {
          ignored('its pattern is not a constant string');
          return;
        }
        const options = attribute.named.get('options');
        let ignoreCase = true;
        if (options !== undefined) {
          const words = (constantString(options.value) ?? options.text).toLowerCase();
          if (
            /multiline|singleline|ignorepatternwhitespace|explicitcapture|righttoleft/.test(words)
          ) {
            ignored(`its options (${options.text}) have no JSON Schema equivalent`);
            return;
          }
          ignoreCase = /ignorecase/.test(words);
        }
        if (element.pattern !== undefined) {
          ignored('only the first [ValidatePattern()] of a parameter becomes its pattern');
          return;
        }
        const converted = convertDotNetPattern(source, { ignoreCase });
        if (converted.pattern === undefined) {
          ignored(
            `the pattern ${JSON.stringify(source)} cannot be expressed in ECMAScript: ${converted.warnings.join('; ')}`,
          );
          return;
        }
        for (const warning of converted.warnings) {
          this.report(
            'warning',
            'W_PATTERN_CHANGED',
            `[${attribute.name}(...)] on $${name}: ${warning}.`,
            attribute.line,
          );
        }
        element.pattern = converted.pattern;
        return;
      }
      case 'validatelength': {
        if (element === undefined) {
          untypedItems();
          return;
        }
        if (element.type !== 'string') {
          ignored('a length only applies to strings');
          return;
        }
        const [low, high] = attribute.positional.map((argument) => constantNumber(argument));
        if (low === undefined || high === undefined) {
          ignored('its bounds are not constant numbers');
          return;
        }
        // ValidateNotNullOrEmpty's minLength 1, [char]'s 1..1 or another ValidateLength stay in force.
        element.minLength = Math.max(element.minLength ?? 0, low);
        element.maxLength = Math.min(element.maxLength ?? high, high);
        return;
      }
      case 'validatecount': {
        if (!isArray) {
          ignored('a count only applies to arrays');
          return;
        }
        const [low, high] = attribute.positional.map((argument) => constantNumber(argument));
        if (low === undefined || high === undefined) {
          ignored('its bounds are not constant numbers');
          return;
        }
        spec.minItems = Math.max(spec.minItems ?? 0, low);
        spec.maxItems = Math.min(spec.maxItems ?? high, high);
        return;
      }
      case 'validatenotnullorempty':
      case 'validatenotnullorwhitespace': {
        const whitespace = attribute.key === 'validatenotnullorwhitespace';
        if (isArray) spec.minItems = Math.max(spec.minItems ?? 0, 1);
        if (element?.type === 'string') {
          element.minLength = Math.max(element.minLength ?? 0, 1);
          // A [ValidatePattern()] in any position keeps the one pattern slot; \S is the fallback.
          const patterned = parameter.attributes.some((a) => a.key === 'validatepattern');
          if (whitespace && element.pattern === undefined && !patterned) element.pattern = '\\S';
        }
        return;
      }
      default:
        return;
    }
  }

  private applyDefault(spec: ParameterSpec, parameter: PsParameter): void {
    const declared = parameter.defaultValue;
    if (declared === undefined || !declared.value.constant || declared.value.value === null) return;
    const coerced = coerceDeep(declared.value.value, spec);
    if (!coerced.ok) {
      this.report(
        'info',
        'I_DEFAULT_DROPPED',
        `The default ${declared.text} of $${parameter.name} is not a ${spec.type}, so the schema shows no default.`,
        declared.line,
      );
      return;
    }
    const problems = findParameterProblems([{ ...spec, name: 'x', default: coerced.value }]);
    if (problems.length > 0) {
      this.report(
        'warning',
        'W_DEFAULT_INVALID',
        `The default ${declared.text} of $${parameter.name} breaks its own validation (${problems.map((p) => p.replace(/^parameter "x": /, '')).join('; ')}), so the schema shows no default.`,
        declared.line,
        'PowerShell does not validate defaults; change the default or the validation attribute.',
      );
      return;
    }
    spec.default = coerced.value;
  }
}

/**
 * Turns a param block into parameter specs: types, `[Parameter()]`, validation attributes and
 * defaults. Problems with one parameter become diagnostics; the specs of the others still come out.
 */
export function convertParameters(input: ConvertParametersInput): ConvertedParameters {
  const converter = new ParameterConverter(input.path, input.what);
  const parameters: ParameterSpec[] = [];
  input.parameters.forEach((parameter, index) => {
    const spec = converter.convert(parameter, input.descriptions[index] ?? '');
    if (spec !== undefined) parameters.push(spec);
  });
  checkParameterSets(input, converter);
  checkCommonParameters(input, converter);
  return { parameters, diagnostics: converter.diagnostics };
}

function checkParameterSets(input: ConvertParametersInput, converter: ParameterConverter): void {
  const sets = new Map<string, number>();
  for (const parameter of input.parameters) {
    for (const attribute of parameter.attributes) {
      if (attribute.key !== 'parameter') continue;
      const set = attribute.named.get('parametersetname');
      if (set === undefined) continue;
      const name = constantString(set.value) ?? set.text;
      if (name.toLowerCase() === '__allparametersets') continue;
      if (!sets.has(name.toLowerCase())) sets.set(name.toLowerCase(), set.line);
    }
  }
  const binding = input.blockAttributes.find((attribute) => attribute.key === 'cmdletbinding');
  const defaultSet = constantString(binding?.named.get('defaultparametersetname')?.value);
  // A default set no parameter names is a set of its own once any other set exists.
  if (defaultSet !== undefined && sets.size > 0 && !sets.has(defaultSet.toLowerCase())) {
    sets.set(defaultSet.toLowerCase(), binding?.line ?? 0);
  }
  if (sets.size <= 1) return;
  const line = [...sets.values()][1] as number;
  converter.report(
    'error',
    'E_PARAMETER_SETS',
    `${capitalize(input.what)} has ${sets.size} parameter sets (${[...sets.keys()].join(', ')}); a tool has one input schema, so only one set is allowed.`,
    line,
    'Split it into one script or function per parameter set, or remove ParameterSetName.',
  );
}

function checkCommonParameters(input: ConvertParametersInput, converter: ParameterConverter): void {
  const binding = input.blockAttributes.find((attribute) => attribute.key === 'cmdletbinding');
  const advanced =
    binding !== undefined ||
    input.parameters.some((p) => p.attributes.some((a) => a.key === 'parameter'));
  if (!advanced) return;
  const reserved = [...COMMON_PARAMETERS];
  if (isTruthy(binding?.named.get('supportsshouldprocess')))
    reserved.push(...SHOULD_PROCESS_PARAMETERS);
  for (const parameter of input.parameters) {
    const clash = reserved.find((name) => name.toLowerCase() === parameter.name.toLowerCase());
    if (clash === undefined) continue;
    converter.report(
      'error',
      'E_COMMON_PARAMETER',
      `Parameter $${parameter.name} of ${input.what} has the name of PowerShell's common parameter -${clash}, which PowerShell refuses in an advanced script or function.`,
      parameter.line,
      'Rename the parameter.',
    );
  }
}

function narrowMinimum(spec: ValueSpec, bound: number): void {
  spec.minimum = spec.minimum === undefined ? bound : Math.max(spec.minimum, bound);
}

function narrowMaximum(spec: ValueSpec, bound: number): void {
  spec.maximum = spec.maximum === undefined ? bound : Math.min(spec.maximum, bound);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
