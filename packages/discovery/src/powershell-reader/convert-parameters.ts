import { createDiagnostic, findParameterProblems } from '@toolpack/core';
import type {
  CredentialParameter,
  Diagnostic,
  ParameterSpec,
  ToolParameterSet,
  ValueSpec,
} from '@toolpack/core';
import { applyValidationAttribute } from './apply-validation-attribute.ts';
import { attributeString, coerceDeep, constantNumber, isTruthy } from './attribute-values.ts';
import { findCredentialType, isSwitchType, mapPowerShellType } from './map-powershell-type.ts';
import { listCommonParameters } from './common-parameters.ts';
import { findRepeatedSets, readParameterSets } from './parameter-sets.ts';
import type { DotNetEnum } from './dotnet-enums/dotnet-enums.ts';
import type { PsAttribute, PsEnum, PsParameter } from './reader.ts';

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
  /** Enums PowerShell resolves for the command's parameter types (a module's own). */
  enums?: readonly PsEnum[];
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

/**
 * The type an untyped parameter evidently expects, from its constant default or its
 * `[ValidateRange()]`, for the hint: the schema itself takes any value, as the engine does.
 */
function suggestType(parameter: PsParameter): string {
  const range = parameter.attributes.find((attribute) => attribute.key === 'validaterange');
  if (range !== undefined && range.positional.length === 2) {
    const bounds = range.positional.map((argument) => constantNumber(argument));
    return bounds.every((bound) => bound === undefined || Number.isInteger(bound))
      ? '[int]'
      : '[double]';
  }
  if (range !== undefined) return '[double]';
  const value = parameter.defaultValue?.value;
  if (value?.constant === true) {
    const v = value.value;
    if (typeof v === 'number') return Number.isInteger(v) ? '[int]' : '[double]';
    if (typeof v === 'boolean') return '[switch]';
    if (Array.isArray(v)) return '[string[]]';
    if (typeof v === 'object' && v !== null) return '[hashtable]';
  }
  return '[string]';
}

/** A parameter of a type no JSON value converts to (`mapPowerShellType`'s `unsupported`). */
interface Unrepresentable {
  parameter: PsParameter;
  typeName: string;
  mandatory: boolean;
}

class ParameterConverter {
  readonly diagnostics: Diagnostic[] = [];
  readonly unrepresentable: Unrepresentable[] = [];
  enums: ReadonlyMap<string, DotNetEnum> = new Map();
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

  reportLeftOut(parameter: PsParameter, typeName: string): void {
    this.report(
      'warning',
      'W_PARAMETER_TYPE',
      `Parameter $${parameter.name} of ${this.what} has the type [${typeName}], which no JSON value can stand for. It is left out of the tool's input schema.`,
      parameter.line,
      'Take the value as a [string] and build the object inside the script if clients should set it.',
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
      .map((attribute) => attributeString(attribute.named.get('helpmessage')))
      .find((message) => message !== undefined && message.trim() !== '');
    const finalDescription = description !== '' ? description : (helpMessage?.trim() ?? '');

    if (finalDescription === '') {
      this.report(
        'error',
        'E_PARAMETER_NO_DESCRIPTION',
        `Parameter $${name} of ${this.what} has no description.`,
        parameter.line,
        `Add ".PARAMETER ${name}" followed by a sentence to the comment-based help, or a "# ..." comment on the line above $${name}. To serve such tools anyway, with a warning per parameter: lenientHelp: true in toolpack.yaml, or --lenient-help.`,
      );
    }

    const typeName = parameter.typeNames[0];
    const mapping = mapPowerShellType(typeName, { enums: this.enums });
    if (mapping.kind === 'unsupported') {
      // Whether a mandatory one refuses the tool or only some of its sets is decided with the sets.
      this.unrepresentable.push({ parameter, typeName: typeName ?? '', mandatory });
      if (!mandatory) this.reportLeftOut(parameter, typeName ?? '');
      return undefined;
    }
    let base: ValueSpec;
    if (mapping.kind === 'untyped') {
      // PowerShell binds any value to an untyped or [object] parameter: so does the schema.
      base = {};
      this.report(
        'info',
        'I_UNTYPED_PARAMETER',
        `Parameter $${name} of ${this.what} ${typeName === undefined ? 'has no type' : `has the type [${typeName}]`}, so it takes any JSON value.`,
        parameter.line,
        `Give it a type such as ${suggestType(parameter)} if clients should be told what to send.`,
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
  converter.enums = new Map((input.enums ?? []).map((e) => [e.name.toLowerCase(), e]));
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
  dropUnbindableSets(input, converter, parameters, parameterSets);
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

/**
 * A mandatory parameter no JSON value can stand for refuses the tool only when every set
 * needs it: PowerShell binds the other sets without it. A set that needs it stays in the list
 * requiring it (so it is never bound: a call fitting it is answered with why), and is reported.
 */
function dropUnbindableSets(
  input: ConvertParametersInput,
  converter: ParameterConverter,
  parameters: readonly ParameterSpec[],
  served: ToolParameterSet[] | undefined,
): void {
  const needed = converter.unrepresentable.filter((entry) => entry.mandatory);
  if (needed.length === 0) return;
  // The sets as the engine has them, the unrepresentable parameters in them, to see who needs one.
  const engineSets = readParameterSets({
    parameters: input.parameters,
    blockAttributes: input.blockAttributes,
    kept: new Set([...parameters, ...needed.map((entry) => entry.parameter)].map((p) => p.name)),
  });
  for (const { parameter, typeName } of needed) {
    const needing = (engineSets ?? []).filter((set) => set.required.includes(parameter.name));
    if (served === undefined || engineSets === undefined || needing.length === engineSets.length) {
      converter.report(
        'error',
        'E_PARAMETER_TYPE',
        `Parameter $${parameter.name} of ${input.what} has the type [${typeName}], which no JSON value can stand for. It is mandatory${engineSets === undefined ? '' : ' in every parameter set'}, so the tool could never be called.`,
        parameter.line,
        'Take the value as a [string] (or several plain parameters) and build the object inside the script.',
      );
      continue;
    }
    converter.reportLeftOut(parameter, typeName);
    for (const set of needing) {
      const kept = served.find((candidate) => candidate.name === set.name);
      if (kept !== undefined && !kept.required.includes(parameter.name))
        kept.required.push(parameter.name);
      converter.report(
        'warning',
        'W_PARAMETER_SET_DROPPED',
        `The parameter set ${set.name} of ${input.what} needs $${parameter.name} ([${typeName}]), which no JSON value can stand for: the tool is served without that set (${served
          .filter((other) => !needing.some((n) => n.name === other.name))
          .map((other) => other.name)
          .join(', ')} remain).`,
        parameter.line,
        `Make $${parameter.name} optional in ${set.name}, or take the value as a [string] and build the object inside the script.`,
      );
    }
  }
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
