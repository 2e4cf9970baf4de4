export interface Column {
  title: string;
  /** Upper bound of the column's width. */
  max: number;
  /** This column takes what the terminal has left after the others. */
  flex?: boolean;
  /** Cut long cells at the start (paths: the file name matters most) instead of the end. */
  truncate?: 'start' | 'end';
}

function truncate(text: string, width: number, where: 'start' | 'end'): string {
  const single = text.replace(/\s+/g, ' ').trim();
  if (single.length <= width) return single;
  if (width <= 1) return single.slice(0, width);
  return where === 'start'
    ? `…${single.slice(single.length - width + 1)}`
    : `${single.slice(0, width - 1)}…`;
}

/** A plain-text table sized to the terminal: no borders, two spaces between columns. */
export function renderTable(
  columns: readonly Column[],
  rows: readonly string[][],
  totalWidth: number,
): string {
  // An infinite width (a pipe, a file) means nothing is cut.
  const bounded = Number.isFinite(totalWidth);
  const widths = columns.map((column, i) =>
    Math.min(
      bounded ? column.max : Number.POSITIVE_INFINITY,
      Math.max(
        column.title.length,
        ...rows.map((row) => (row[i] ?? '').replace(/\s+/g, ' ').trim().length),
      ),
    ),
  );
  const flex = columns.findIndex((column) => column.flex);
  if (flex >= 0 && bounded) {
    const others =
      widths.reduce((sum, w, i) => (i === flex ? sum : sum + w), 0) + 2 * (columns.length - 1);
    widths[flex] = Math.max(20, Math.min(widths[flex] ?? 20, totalWidth - others));
  }
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => {
        const text = truncate(cell, widths[i] ?? 0, columns[i]?.truncate ?? 'end');
        return i === cells.length - 1 ? text : text.padEnd(widths[i] ?? 0);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), ...rows.map(line)].join('\n') + '\n';
}
