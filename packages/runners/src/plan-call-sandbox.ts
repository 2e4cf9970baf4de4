import { planSandbox, type SandboxHomeFile, type SandboxPlan } from '@toolpack/containment';
import type { CallConfinement } from './runner-types.ts';

export interface PlanCallSandboxInput {
  confinement: CallConfinement;
  /**
   * Names what the runtime paths depend on (the interpreter's argv), so that the plan is
   * remembered per sandbox and variant; absent, the plan is made afresh.
   */
  variant?: string;
  /** Read-only paths the runner knows the tool needs to start (interpreter, entry script). */
  runtimePaths(): readonly string[];
  /** Paths the runner itself needs writable inside (the PowerShell host's socket folder). */
  extraWrite?: readonly string[];
  /** Files bound read-only into the private HOME (a PowerShell host's startup profile). */
  homeFiles?: readonly SandboxHomeFile[];
}

export interface SandboxPlanner {
  /** The plan a confined call's process starts under; undefined for an unconfined one. */
  plan(input: PlanCallSandboxInput): SandboxPlan | undefined;
}

/**
 * Plans per sandbox and variant, remembered: a process tool is planned on every call, and
 * finding the runtime paths and planning resolve real paths on disk.
 */
export function createSandboxPlanner(projectRoot: string): SandboxPlanner {
  const plans = new Map<string, SandboxPlan>();
  return {
    plan({ confinement, variant, runtimePaths, extraWrite, homeFiles }) {
      const sandbox = confinement.sandbox;
      if (sandbox === undefined) return undefined;
      const cacheKey = variant === undefined ? undefined : `${confinement.key}\0${variant}`;
      const known = cacheKey === undefined ? undefined : plans.get(cacheKey);
      if (known !== undefined) return known;
      const plan = planSandbox({
        sandbox,
        projectRoot,
        runtimePaths: runtimePaths(),
        ...(extraWrite === undefined ? {} : { writableRuntimePaths: extraWrite }),
        ...(homeFiles === undefined ? {} : { homeFiles }),
      });
      if (cacheKey !== undefined) plans.set(cacheKey, plan);
      return plan;
    },
  };
}
