export {
  HEADER_SCRIPT_EXTENSIONS,
  describeHeaderScript,
  getCommentPrefix,
  readHeaderLines,
} from './describe-header-script.ts';
export type { DescribeHeaderScriptInput } from './describe-header-script.ts';
export { describeDeclaredScript, getBaseName, getExtension } from './declared-tool.ts';
export type { DescribeDeclaredScriptInput } from './declared-tool.ts';
export { classifyDeclarationLine, parseDeclarations } from './parse-declarations.ts';
export { parseDescriptionText } from './parse-description-text.ts';
export { parseParamLine } from './parse-param-line.ts';
export type {
  DeclarationDialect,
  DeclarationLine,
  DeclarationProblem,
  DeclaredParameter,
  ParamLineResult,
  ParseDeclarationsOptions,
  ParsedDeclarations,
  ParsedParamLine,
} from './declaration-types.ts';
