import { findPatternProblem } from '@toolpack/core';
import type { Diagnostic, ParameterSpec, ValueSpec } from '@toolpack/core';
import { coerce, constantNumber, constantString, isTruthy } from './attribute-values.ts';
import { convertDotNetPattern } from './dotnet-regex.ts';
import type { PsAttribute, PsParameter } from './reader.ts';

/** Records a problem with one parameter at a line of the file. */
export type ParameterReport = (
  severity: Diagnostic['severity'],
  code: Diagnostic['code'],
  message: string,
  line: number,
  hint?: string,
) => void;

/**
 * Narrows a parameter's schema by one validation attribute (`ValidateSet`, `ValidateRange`,
 * `ValidatePattern`, `ValidateLength`, `ValidateCount`, ...); what cannot be shown in JSON
 * Schema is reported.
 */
export function applyValidationAttribute(
  spec: ParameterSpec,
  attribute: PsAttribute,
  parameter: PsParameter,
  report: ParameterReport,
): void {
  const name = parameter.name;
  const isArray = spec.type === 'array';
  // Element-wise validators apply to each item of a collection parameter.
  const element: ValueSpec | undefined = isArray ? spec.items : spec;
  const ignored = (why: string) =>
    report(
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
      if (
        element.type !== undefined &&
        element.type !== 'string' &&
        element.type !== 'integer' &&
        element.type !== 'number'
      ) {
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
              `the value ${JSON.stringify(value)} is not ${element.type === 'integer' || element.type === 'number' ? 'a number' : 'a string'}`,
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
      // PowerShell compares a ValidateSet ignoring case unless `IgnoreCase = $false`.
      const ignoreCase = attribute.named.get('ignorecase');
      if (
        values.some((value) => typeof value === 'string') &&
        (ignoreCase === undefined || isTruthy(ignoreCase))
      )
        element.enumIgnoresCase = true;
      else delete element.enumIgnoresCase;
      return;
    }
    case 'validaterange': {
      if (element === undefined) {
        untypedItems();
        return;
      }
      if (element.type !== undefined && element.type !== 'integer' && element.type !== 'number') {
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
      if (element.type !== undefined && element.type !== 'string') {
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
      // The server checks patterns in linear time only (docs/json-schema-patterns.md).
      const linear = findPatternProblem(converted.pattern);
      if (linear !== undefined) {
        ignored(`once converted to ECMAScript, ${linear}`);
        return;
      }
      for (const warning of converted.warnings) {
        report(
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
      if (element.type !== undefined && element.type !== 'string') {
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
      // Untyped, the value may be a string or an array: each keyword binds only its own kind.
      if (isArray || spec.type === undefined) spec.minItems = Math.max(spec.minItems ?? 0, 1);
      if (element !== undefined && (element.type === 'string' || element.type === undefined)) {
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

function narrowMinimum(spec: ValueSpec, bound: number): void {
  spec.minimum = spec.minimum === undefined ? bound : Math.max(spec.minimum, bound);
}

function narrowMaximum(spec: ValueSpec, bound: number): void {
  spec.maximum = spec.maximum === undefined ? bound : Math.min(spec.maximum, bound);
}
