import { isTruthy } from './attribute-values.ts';
import type { PsAttribute, PsParameter } from './reader.ts';

/** PowerShell's common parameters: added by PowerShell to every advanced script or function. */
export const COMMON_PARAMETERS = [
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
] as const;

/** Added too when the command says `SupportsShouldProcess`. */
export const SHOULD_PROCESS_PARAMETERS = ['WhatIf', 'Confirm'] as const;

const ANY_COMMON = new Set(
  [...COMMON_PARAMETERS, ...SHOULD_PROCESS_PARAMETERS].map((name) => name.toLowerCase()),
);

/**
 * Whether a parameter name is one of the common or ShouldProcess parameters, in any case: they
 * change how a call runs, not what it does, so no tool argument carries them.
 */
export function isCommonParameterName(name: string): boolean {
  return ANY_COMMON.has(name.toLowerCase());
}

/**
 * The common parameters a command really has: every one when it is advanced (`[CmdletBinding()]`
 * or a `[Parameter()]` on any parameter), `WhatIf` and `Confirm` too when it says
 * `SupportsShouldProcess`; none for a simple function or script.
 */
export function listCommonParameters(command: {
  blockAttributes: readonly PsAttribute[];
  parameters: readonly PsParameter[];
}): string[] {
  const binding = command.blockAttributes.find((attribute) => attribute.key === 'cmdletbinding');
  const advanced =
    binding !== undefined ||
    command.parameters.some((p) => p.attributes.some((a) => a.key === 'parameter'));
  if (!advanced) return [];
  const names: string[] = [...COMMON_PARAMETERS];
  if (isTruthy(binding?.named.get('supportsshouldprocess')))
    names.push(...SHOULD_PROCESS_PARAMETERS);
  return names;
}
