export { ToolpackError, isToolpackError } from './errors.ts';
export type { ToolpackErrorOptions } from './errors.ts';

export { ERROR_CODES, describeErrorCode } from './error-codes.ts';
export type { ErrorCodeEntry, ErrorExitClass, ToolpackErrorCode } from './error-codes.ts';

export { createDiagnostic, formatDiagnostic, hasErrors } from './diagnostics.ts';
export type { Diagnostic, DiagnosticLocation, DiagnosticSeverity } from './diagnostics.ts';

export { TOOL_QUESTION_KEY_PATTERN, TOOL_SOURCE_KINDS } from './tool-model.ts';
export type {
  DiscoveredTool,
  JsonSchema,
  ObjectJsonSchema,
  Tool,
  ToolAnnotations,
  ToolCallResult,
  ToolContent,
  ToolDefinition,
  ToolInputExample,
  ToolLogLevel,
  ToolParameterSet,
  ToolQuestion,
  ToolQuestionAnswer,
  ToolQuestionField,
  ToolRunContext,
  ToolSandbox,
  ToolSource,
  ToolSourceKind,
  ToolInvocation,
  PwshSession,
  WorkflowSpec,
  WorkflowStep,
} from './tool-model.ts';

export {
  TOOL_NAME_MAX_LENGTH,
  TOOL_NAME_PATTERN,
  isValidToolName,
  normalizeToolName,
  splitWords,
  toInvokeFunctionName,
  toKebabCase,
  toPascalCase,
  toSnakeCase,
  validateToolName,
} from './names.ts';
export type { NormalizeToolNameOptions, NormalizedToolName } from './names.ts';

export {
  ENUM_IGNORE_CASE_KEYWORD,
  PARAMETER_TYPES,
  addParameterSetBranches,
  buildInputSchema,
  findEnumValue,
  findParameterProblems,
} from './parameter-model.ts';
export { canonicalizeArguments } from './canonicalize-arguments.ts';
export type {
  BuildInputSchemaOptions,
  ParameterSpec,
  ParameterType,
  ValueSpec,
} from './parameter-model.ts';

export {
  SOURCE_LOCATION_KEYS,
  getSourceLocation,
  sourceSpecSchema,
  wildcardListSchema,
} from './source-spec.ts';
export type { SourceLocationKey, SourceOptions, SourceSpec } from './source-spec.ts';
export { toolPolicySchema } from './tool-policy.ts';
export { DEFAULT_SCHEMA_DIALECT, SCHEMA_DIALECTS, schemaDialectSchema } from './schema-dialect.ts';
export type { SchemaDialect } from './schema-dialect.ts';
export {
  CREDENTIAL_TYPES,
  credentialBindingSchema,
  secretSourceSchema,
} from './credential-binding.ts';
export type {
  BoundCredential,
  CredentialBinding,
  CredentialParameter,
  CredentialType,
  SecretSource,
} from './credential-binding.ts';
export {
  LEAST_PERMISSIONS,
  describePermissions,
  findFilesystemRootProblem,
  findPermissionWidening,
  normalizePermissions,
  packPermissionsSchema,
} from './pack-permissions.ts';
export type { PackPermissions, PackPermissionsInput } from './pack-permissions.ts';
export type { ToolPolicy } from './tool-policy.ts';

export { editDistance, findClosestName } from './closest-name.ts';

export { pickConditionFlags, readNodeOptionsConditionFlags } from './condition-flags.ts';

export { parseHints } from './hints.ts';
export type { HintLine, ParsedHints } from './hints.ts';

export {
  createArgumentValidator,
  findSchemaProblems,
  MAX_REPORTED_ARGUMENT_ERRORS,
  validateArguments,
} from './validate-arguments.ts';
export type { ArgumentError, ArgumentValidation, ArgumentValidator } from './validate-arguments.ts';

export { compileLinearPattern, findPatternProblem } from './linear-pattern.ts';
export type { LinearPattern, LinearPatternOptions } from './linear-pattern.ts';

export { defineTool, isDefinedTool } from './define-tool.ts';
export type { DefinedTool, SchemaInput, ToolExample, ToolSpec } from './define-tool.ts';

export { isPlainObject } from './is-plain-object.ts';

export { parseLocatedYaml } from './located-yaml.ts';
export type { LocatedYaml, YamlProblem, YamlProblemKind } from './located-yaml.ts';

export { parseDuration } from './parse-duration.ts';

export { createIssueDiagnostics, formatIssuePath, getIssuePath } from './zod-issue-diagnostics.ts';
export type { IssueDiagnosticsOptions, IssuePath } from './zod-issue-diagnostics.ts';
