import { listTopLevelFunctions, readPowerShell } from './reader.ts';

export interface PowerShellFunctionLocation {
  /** As written, without a scope qualifier (`function global:Get-X` -> `Get-X`). */
  name: string;
  /** 1-based line of the `function` keyword. */
  line: number;
}

/**
 * The functions a script defines at its top level (also inside top-level `if`/`try` blocks,
 * never inside other functions or script blocks), found by parsing, never by running.
 */
export async function findPowerShellFunctions(
  content: string,
): Promise<PowerShellFunctionLocation[]> {
  return listTopLevelFunctions(readPowerShell(content));
}
