/** Rows padded into columns two spaces apart; a left-aligned last column is not padded (no trailing spaces). */
export function formatTable(rows: string[][], alignRight: (column: number) => boolean = () => false): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const pad = (cell: string, column: number, last: boolean) => {
    if (alignRight(column)) return cell.padStart(widths[column]!);
    return last ? cell : cell.padEnd(widths[column]!);
  };
  return rows.map((row) => row.map((cell, column) => pad(cell, column, column === row.length - 1)).join('  '));
}
