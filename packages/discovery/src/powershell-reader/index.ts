export { describePowerShellScript, describePowerShellScriptContent } from './describe-script.ts';
export type { PowerShellScriptInput } from './describe-script.ts';
export { describePowerShellModule } from './describe-module.ts';
export type { DescribeModuleInput } from './describe-module.ts';
export { parsePowerShellManifest } from './parse-module-manifest.ts';
export type { PowerShellManifest } from './parse-module-manifest.ts';
export { resolvePowerShellModule } from './resolve-module.ts';
export type { ResolvePowerShellModuleOptions } from './resolve-module.ts';
export { findPowerShellFunctions } from './find-functions.ts';
export type { PowerShellFunctionLocation } from './find-functions.ts';
export {
  findFunctionHelp,
  findParameterComments,
  findScriptHelp,
  parseCommentHelp,
} from './comment-help.ts';
export type { CommentHelp, HelpRejection, HelpSearch } from './comment-help.ts';
export { readPowerShell } from './reader.ts';
export type {
  AttributeArgument,
  PowerShellDocument,
  PsAttribute,
  PsDotSource,
  PsExport,
  PsFunction,
  PsParamBlock,
  PsParameter,
  PsParameterList,
} from './reader.ts';
export { tokenizePowerShell } from './tokenizer.ts';
export type { ParseProblem, Token, TokenKind, TokenizeResult } from './tokenizer.ts';
export { evaluateConstant, parseNumberLiteral } from './constant-value.ts';
export type { ConstantResult } from './constant-value.ts';
export { convertParameters } from './convert-parameters.ts';
export type { ConvertParametersInput, ConvertedParameters } from './convert-parameters.ts';
export { mapPowerShellType } from './map-powershell-type.ts';
export type { PowerShellTypeMapping } from './map-powershell-type.ts';
export { convertDotNetPattern } from './dotnet-regex.ts';
export type { ConvertedPattern } from './dotnet-regex.ts';
export { compileWildcard, matchesAnyWildcard } from './wildcard.ts';
