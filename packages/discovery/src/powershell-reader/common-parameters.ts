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
