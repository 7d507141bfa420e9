/**
 * Fitting a line to a terminal's width. Why it matters: the live block is redrawn by moving the
 * cursor up one row per line; a line that wraps takes two rows and the next redraw would leave
 * half of the block behind. Wide characters (CJK, emoji in a label) take two columns.
 */

const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], [0x2e80, 0xa4cf], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f],
  [0xff00, 0xff60], [0xffe0, 0xffe6], [0x1f300, 0x1faff], [0x20000, 0x3fffd],
];

const cells = (codePoint: number) => (WIDE.some(([from, to]) => codePoint >= from && codePoint <= to) ? 2 : 1);

/** The columns `text` takes on a terminal. */
export const widthOf = (text: string): number => [...text].reduce((sum, char) => sum + cells(char.codePointAt(0)!), 0);

/** The columns a line may take on a terminal `columns` wide: the last is left free (some terminals wrap on it). */
export const usableColumns = (columns: number): number => Math.max(1, columns - 1);

/** `line` cut to at most `columns - 1` columns (the last column is left free: some terminals wrap on it), with `…` where cut. */
export function fitToWidth(line: string, columns: number): string {
  const limit = usableColumns(columns);
  const chars = [...line];
  if (widthOf(line) <= limit) return line;
  let used = 0;
  let out = '';
  for (const char of chars) {
    const width = cells(char.codePointAt(0)!);
    if (used + width > limit - 1) break;
    used += width;
    out += char;
  }
  return `${out}…`;
}
