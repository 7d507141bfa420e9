/**
 * A small terminal, to read what a program drew on one: text overwrites the cells at the
 * cursor (wrapping at `columns`), CR goes to column 0, LF to the start of the next row (as a
 * terminal driver delivers it, translating LF to CR LF), `CSI n A` n rows up,
 * `CSI J` erases from the cursor to the end of the screen, `CSI K` to the end of the line. The
 * screen keeps every row ever written (no scrolling off), so a test sees the whole session as a
 * person scrolling back would. Any other escape sequence is listed in `unknown`.
 */
/** One redraw of a block in place: the cursor up over it, to column 0, everything below erased. */
// eslint-disable-next-line no-control-regex -- matching escape sequences is the point
export const REDRAW = /\x1b\[\d+A\r\x1b\[J/g;

export interface Screen {
  rows: string[];
  unknown: string[];
}

export function replayTerminal(output: string, columns = 500): Screen {
  const rows: string[][] = [[]];
  const unknown: string[] = [];
  let row = 0;
  let col = 0;
  const at = (r: number) => (rows[r] ??= []);
  for (let i = 0; i < output.length; ) {
    // eslint-disable-next-line no-control-regex -- reading escape sequences is the point
    const csi = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(output.slice(i, i + 16));
    if (csi) {
      const n = Number(csi[1] || '1');
      if (csi[2] === 'A') row = Math.max(0, row - n);
      else if (csi[2] === 'J' && (csi[1] ?? '') === '') {
        at(row).length = Math.min(at(row).length, col);
        rows.length = row + 1;
      } else if (csi[2] === 'K' && (csi[1] ?? '') === '') at(row).length = Math.min(at(row).length, col);
      else unknown.push(csi[0]);
      i += csi[0].length;
      continue;
    }
    const char = String.fromCodePoint(output.codePointAt(i)!);
    i += char.length;
    if (char === '\r') col = 0;
    else if (char === '\n') [row, col] = [row + 1, 0];
    else if (char === '\x1b') unknown.push('ESC');
    else {
      if (col >= columns) {
        row++;
        col = 0;
      }
      const cells = at(row);
      while (cells.length < col) cells.push(' ');
      cells[col++] = char;
    }
  }
  for (let r = 0; r <= row; r++) at(r);
  return { rows: rows.map((cells) => (cells ?? []).join('').trimEnd()), unknown };
}
