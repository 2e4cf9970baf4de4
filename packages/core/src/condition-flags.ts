/**
 * The flags in `args` that choose which export a package resolves to: `--conditions=x`,
 * `--conditions x`, `-C x`, `-Cx`. A child process or worker given only these resolves
 * packages as this process does, without inheriting inspector or loader flags that would
 * make it hang or behave differently.
 */
export function pickConditionFlags(args: readonly string[]): string[] {
  const picked: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg.startsWith('--conditions=') || (arg.startsWith('-C') && arg.length > 2)) {
      picked.push(arg);
    } else if ((arg === '--conditions' || arg === '-C') && i + 1 < args.length) {
      picked.push(arg, args[i + 1] ?? '');
      i++;
    }
  }
  return picked;
}

/**
 * The condition flags in NODE_OPTIONS. A worker started with an `env` of its own reads NODE_OPTIONS
 * from that `env`, not from its parent, so these must be passed to it as `execArgv`.
 */
export function readNodeOptionsConditionFlags(
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string[] {
  return pickConditionFlags((nodeOptions ?? '').split(/\s+/).filter(Boolean));
}
