import { createDiagnostic } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';
import type { PsAttribute, PsParameter } from './reader.ts';

/** The attributes a param block is written with, as PowerShell spells them. */
const PARAM_BLOCK_ATTRIBUTES = [
  'Parameter',
  'Alias',
  'AllowNull',
  'AllowEmptyString',
  'AllowEmptyCollection',
  'ValidateSet',
  'ValidateRange',
  'ValidatePattern',
  'ValidateLength',
  'ValidateCount',
  'ValidateScript',
  'ValidateNotNull',
  'ValidateNotNullOrEmpty',
  'ValidateNotNullOrWhiteSpace',
  'ValidateDrive',
  'ValidateUserDrive',
  'ValidateTrustedData',
  'SupportsWildcards',
  'PSDefaultValue',
  'ArgumentCompleter',
  'ArgumentCompletions',
  'CmdletBinding',
  'OutputType',
  'Credential',
  'PSTypeName',
];

/**
 * Attribute types a plain pwsh 7.6.9 has loaded that are as near one of those names: real types,
 * never misspellings (find-misspelled-attributes.test.ts asks pwsh for every attribute type).
 */
const NEAR_BUT_REAL = new Set(['defaultvalue']);

/** Optimal string alignment distance, ignoring case: `VaildateSet` is 1 from `ValidateSet`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The attribute PowerShell's name is a misspelling of (`ValidateSet` for `[VaildateSet()]`), or
 * undefined. Only an unqualified name within two edits of a param-block attribute counts: a
 * namespaced one (`[MyModule.ValidateThing()]`) or anything further off may be a type a module
 * loads, which the files do not tell.
 */
export function findIntendedAttribute(
  attribute: Pick<PsAttribute, 'name' | 'key'>,
): string | undefined {
  if (attribute.name.includes('.') || NEAR_BUT_REAL.has(attribute.key)) return undefined;
  if (PARAM_BLOCK_ATTRIBUTES.some((name) => name.toLowerCase() === attribute.key)) return undefined;
  return PARAM_BLOCK_ATTRIBUTES.find(
    (name) => editDistance(name.toLowerCase(), attribute.key) <= 2,
  );
}

/**
 * E_UNRESOLVED_TYPE for each attribute of the param block or its parameters whose name is a
 * misspelling: PowerShell parses such a script, then refuses every run with "Cannot find the
 * type for custom attribute 'VaildateSet'".
 */
export function findMisspelledAttributes(input: {
  path: string;
  what: string;
  parameters: readonly PsParameter[];
  blockAttributes: readonly PsAttribute[];
}): Diagnostic[] {
  const placed = [
    ...input.blockAttributes.map((attribute) => ({ attribute, on: 'the param block' })),
    ...input.parameters.flatMap((parameter) =>
      parameter.attributes.map((attribute) => ({ attribute, on: `$${parameter.name}` })),
    ),
  ];
  const diagnostics: Diagnostic[] = [];
  for (const { attribute, on } of placed) {
    const intended = findIntendedAttribute(attribute);
    if (intended === undefined) continue;
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_UNRESOLVED_TYPE',
        `The attribute [${attribute.name}()] on ${on} of ${input.what} names no type: PowerShell refuses every run with "Cannot find the type for custom attribute '${attribute.name}'".`,
        { path: input.path, line: attribute.line },
        `Did you mean [${intended}()]? Correct the spelling.`,
      ),
    );
  }
  return diagnostics;
}
