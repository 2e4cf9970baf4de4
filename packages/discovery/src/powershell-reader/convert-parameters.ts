import { createDiagnostic, findParameterProblems } from '@toolpack/core';
import type {
  CredentialParameter,
  Diagnostic,
  ParameterSpec,
  ToolParameterSet,
  ValueSpec,
} from '@toolpack/core';
import { applyValidationAttribute } from './apply-validation-attribute.ts';
import { coerceDeep, constantNumber, constantString, isTruthy } from './attribute-values.ts';
import {
  ARRAY,
  BOOLEAN,
  INTEGER,
  NUMBER,
  OBJECT,
  STRING,
  findCredentialType,
  isSwitchType,
  mapPowerShellType,
} from './map-powershell-type.ts';
import { listCommonParameters } from './common-parameters.ts';
import { findRepeatedSets, readParameterSets } from './parameter-sets.ts';
import type { PsAttribute, PsParameter } from './reader.ts';

/** The engine keeps a command's sets as bits of a 32-bit mask ("ParsingTooManyParameterSets"). */
const MAX_PARAMETER_SETS = 32;

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
  /** Present only when the param block has more than one parameter set. */
  parameterSets?: ToolParameterSet[];
  /**
   * `[pscredential]`/`[securestring]` parameters: out of the schema and the sets, for
   * discovery to bind from server secrets (toolpack.yaml `credentials:`) or refuse.
   */
  credentialParameters?: CredentialParameter[];
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
  readonly credentials: CredentialParameter[] = [];
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
    // The server fills it in or discovery refuses what needs it; a model never sees it, so it
    // needs no description either.
    const credentialType = findCredentialType(parameter.typeNames[0]);
    if (credentialType !== undefined) {
      this.credentials.push({
        name,
        type: credentialType,
        line: parameter.line,
        required: mandatory,
      });
      return undefined;
    }
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
    for (const attribute of parameter.attributes)
      applyValidationAttribute(spec, attribute, parameter, this.report.bind(this));
    if (!mandatory) this.applyDefault(spec, parameter);
    // A switch left out binds as $false: that is the engine's binding, not an invented default.
    if (!mandatory && parameter.defaultValue === undefined && isSwitchType(typeName))
      spec.default = false;
    return spec;
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
 * defaults, and its parameter sets when there are several. Problems with one parameter become diagnostics; the specs of the others still come out.
 */
export function convertParameters(input: ConvertParametersInput): ConvertedParameters {
  const converter = new ParameterConverter(input.path, input.what);
  const parameters: ParameterSpec[] = [];
  input.parameters.forEach((parameter, index) => {
    const spec = converter.convert(parameter, input.descriptions[index] ?? '');
    if (spec !== undefined) parameters.push(spec);
  });
  checkCommonParameters(input, converter);
  for (const { parameter, set } of findRepeatedSets(input.parameters)) {
    converter.report(
      'error',
      'E_PARAMETER_SETS',
      `Parameter $${parameter.name} of ${input.what} is declared in the parameter set ${set} more than once, which PowerShell refuses to load.`,
      parameter.line,
      'Keep one [Parameter()] attribute per set on the parameter; give each attribute its own ParameterSetName.',
    );
  }
  const parameterSets = readParameterSets({
    parameters: input.parameters,
    blockAttributes: input.blockAttributes,
    kept: new Set(parameters.map((parameter) => parameter.name)),
  });
  if (parameterSets !== undefined && parameterSets.length > MAX_PARAMETER_SETS) {
    converter.report(
      'error',
      'E_PARAMETER_SETS',
      `${input.what.charAt(0).toUpperCase()}${input.what.slice(1)} has ${parameterSets.length} parameter sets; PowerShell refuses to load a command with more than ${MAX_PARAMETER_SETS}.`,
      input.parameters[0]?.line ?? 1,
      'Split the command, or let some sets share parameters so fewer are needed.',
    );
  }
  const credentialParameters = placeCredentialParameters(converter.credentials, input);
  return {
    parameters,
    diagnostics: converter.diagnostics,
    ...(credentialParameters.length === 0 ? {} : { credentialParameters }),
    ...(parameterSets === undefined ? {} : { parameterSets }),
  };
}

/** With several parameter sets: which sets take each credential parameter, and need it. */
function placeCredentialParameters(
  credentials: readonly CredentialParameter[],
  input: ConvertParametersInput,
): CredentialParameter[] {
  if (credentials.length === 0) return [];
  const sets = readParameterSets({
    parameters: input.parameters,
    blockAttributes: input.blockAttributes,
    kept: new Set(credentials.map((credential) => credential.name)),
  });
  if (sets === undefined) return [...credentials];
  return credentials.map((credential) => {
    const requiredIn = sets
      .filter((set) => set.required.includes(credential.name))
      .map((set) => set.name);
    return {
      ...credential,
      required: requiredIn.length === sets.length,
      sets: sets.filter((set) => set.parameters.includes(credential.name)).map((set) => set.name),
      requiredIn,
    };
  });
}

function checkCommonParameters(input: ConvertParametersInput, converter: ParameterConverter): void {
  const reserved = listCommonParameters(input);
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
