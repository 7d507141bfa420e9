/** Rows of cells as aligned text columns, two spaces apart; `rightAligned[c]` pads column c on the left. */
export function table(rows: string[][], rightAligned: readonly boolean[] = []): string[] {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, c) => (rightAligned[c] ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}
