import type { EngineFacts } from './engine-exports.ts';
import { mapPowerShellType } from './map-powershell-type.ts';
import { readPowerShell } from './reader.ts';
import type { PowerShellDocument, PsEnum, PsFunction, PsParameter } from './reader.ts';

/** What the engine's facts add to a function's own definition, in the reader's terms. */
export interface FunctionEngineFacts {
  /** The `dynamicparam` block's parameters, read from the engine's param-block text. */
  dynamicParameters: PsParameter[];
  /** The compiled enums its parameter types name, by the type name as written. */
  enums: PsEnum[];
}

/**
 * The line of a function's `dynamicparam` block, if it has one: its parameters exist only when
 * the engine runs the block, so only the engine (read-engine-facts) can describe them.
 */
export function findDynamicParamBlock(
  document: PowerShellDocument,
  fn: PsFunction,
): number | undefined {
  const { tokens } = document;
  for (let i = fn.bodyOpen + 1; i < fn.bodyClose; i++) {
    const token = tokens[i];
    if (token === undefined) break;
    if (token.kind === 'word' && token.text.toLowerCase() === 'dynamicparam') {
      let next = i + 1;
      while (tokens[next]?.kind === 'comment' || tokens[next]?.kind === 'newline') next++;
      if (tokens[next]?.kind === 'open' && tokens[next]?.text === '{') return token.line;
    }
    // Only the body's own blocks: a nested script block's words are not the function's.
    if (token.kind === 'open' && token.match !== undefined && token.match > i) i = token.match;
  }
  return undefined;
}

/**
 * Reads the engine's facts of one function with the reader, so that the one description
 * (describeCommand) turns them into the tool: the dynamic parameters are parsed as the param
 * block they would be, placed at the `dynamicparam` line; each enum fact becomes an enum named
 * as the parameter's type is written, which the type mapping then resolves.
 */
export function readEngineFacts(
  facts: EngineFacts | undefined,
  declared: readonly PsParameter[],
  /** The module's own PowerShell enums of the function's file, by lower-cased name. */
  ownEnums: ReadonlyMap<string, PsEnum> = new Map(),
): FunctionEngineFacts & { error?: string } {
  const result: FunctionEngineFacts & { error?: string } = { dynamicParameters: [], enums: [] };
  if (facts === undefined) return result;
  const { dynamic } = facts;
  if (dynamic !== undefined && dynamic.parameters.length > 0) {
    const document = readPowerShell(`param(\n${dynamic.parameters.join(',\n')}\n)`);
    const problem = document.errors[0];
    if (problem !== undefined || document.paramBlock === undefined) {
      result.error = `the engine described a dynamic parameter as ${JSON.stringify(dynamic.parameters[(problem?.line ?? 2) - 2] ?? '')}, which does not read as a parameter${problem === undefined ? '' : ` (${problem.message})`}`;
    } else {
      const taken = new Set(declared.map((parameter) => parameter.name.toLowerCase()));
      result.dynamicParameters = document.paramBlock.parameters
        .filter((parameter) => !taken.has(parameter.name.toLowerCase()))
        .map((parameter) => placeAt(parameter, dynamic.line));
    }
  }
  const all = [...declared, ...result.dynamicParameters];
  for (const fact of facts.enums ?? []) {
    const lower = fact.parameter.toLowerCase();
    const parameter = all.find((candidate) => candidate.name.toLowerCase() === lower);
    const typeName = parameter?.typeNames[0]?.replace(/(\[,*\])+$/, '');
    if (parameter === undefined || typeName === undefined) continue;
    // Only the types the reader cannot resolve: the framework's well-known enums and the
    // module's own PowerShell enums stay the reader's.
    if (mapPowerShellType(typeName, { enums: ownEnums }).kind !== 'as-string') continue;
    result.enums.push({
      name: typeName,
      line: parameter.line,
      names: [...fact.names],
      flags: fact.flags,
    });
  }
  return result;
}

/** A parameter of the engine's text, its lines moved to the `dynamicparam` block it comes from. */
function placeAt(parameter: PsParameter, line: number): PsParameter {
  return {
    ...parameter,
    line,
    attributes: parameter.attributes.map((attribute) => ({
      ...attribute,
      line,
      positional: attribute.positional.map((argument) => ({ ...argument, line })),
      named: new Map([...attribute.named].map(([key, argument]) => [key, { ...argument, line }])),
    })),
  };
}
