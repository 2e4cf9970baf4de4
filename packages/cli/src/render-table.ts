export interface Column {
  title: string;
  /** Upper bound; the last column takes what the terminal has left. */
  max: number;
}

function truncate(text: string, width: number): string {
  const single = text.replace(/\s+/g, ' ').trim();
  if (single.length <= width) return single;
  return width <= 1 ? single.slice(0, width) : `${single.slice(0, width - 1)}…`;
}

/** A plain-text table sized to the terminal: no borders, two spaces between columns. */
export function renderTable(columns: readonly Column[], rows: readonly string[][], totalWidth: number): string {
  const widths = columns.map((column, i) =>
    Math.min(column.max, Math.max(column.title.length, ...rows.map((row) => (row[i] ?? '').length))),
  );
  const fixed = widths.slice(0, -1).reduce((sum, w) => sum + w + 2, 0);
  widths[widths.length - 1] = Math.max(20, Math.min(widths[widths.length - 1] ?? 20, totalWidth - fixed));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        const text = truncate(cell, width);
        return i === cells.length - 1 ? text : text.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), ...rows.map(line)].join('\n') + '\n';
}
