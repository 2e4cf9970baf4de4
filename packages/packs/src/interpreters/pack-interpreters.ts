/** A toolpack.yaml `interpreters:` map: file extension (`.rb`) -> argv (the script path is appended). */
export type InterpreterMap = Record<string, string[]>;

/** Sorted by extension, so a lock entry and a comparison see one spelling. */
export function normalizeInterpreters(
  interpreters: Readonly<Record<string, readonly string[]>> | undefined,
): InterpreterMap {
  const sorted: InterpreterMap = {};
  for (const extension of Object.keys(interpreters ?? {}).sort())
    sorted[extension] = [...interpreters![extension]!];
  return sorted;
}

/**
 * What `wanted` runs beyond `approved`, one line each: an extension it had no interpreter for,
 * or one whose command changed. A pack's interpreter runs its tools (inside its sandbox), so a
 * new or changed one is approved like a widened permission; one taken away is not asked about.
 */
export function findInterpreterWidening(
  approved: Readonly<Record<string, readonly string[]>> | undefined,
  wanted: Readonly<Record<string, readonly string[]>> | undefined,
): string[] {
  const lines: string[] = [];
  for (const [extension, argv] of Object.entries(normalizeInterpreters(wanted))) {
    const before =
      approved !== undefined && Object.hasOwn(approved, extension)
        ? approved[extension]
        : undefined;
    if (before === undefined || JSON.stringify(before) !== JSON.stringify(argv))
      lines.push(`run its ${extension} tools with ${JSON.stringify(argv)}`);
  }
  return lines;
}

export function areInterpretersEqual(
  a: Readonly<Record<string, readonly string[]>> | undefined,
  b: Readonly<Record<string, readonly string[]>> | undefined,
): boolean {
  return JSON.stringify(normalizeInterpreters(a)) === JSON.stringify(normalizeInterpreters(b));
}

/**
 * The interpreters as the lines a person approves (the CLI's prompt, `mcp pack audit`, the
 * gallery), each argv as JSON so nothing in it hides: none when the pack declares none.
 */
export function describeInterpreters(
  interpreters: Readonly<Record<string, readonly string[]>> | undefined,
): string[] {
  return Object.entries(normalizeInterpreters(interpreters)).map(
    ([extension, argv]) => `interpreter: runs its ${extension} tools with ${JSON.stringify(argv)}`,
  );
}
