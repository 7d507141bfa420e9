/**
 * Where a cell starts in a CSV or JSON Lines file, so a bad value is reported at FILE:LINE:COL.
 * Computed only for the rows that have a problem: the line index is built on first use, and each
 * lookup scans one record. Columns count characters from 1, as editors do.
 */
export interface Position {
  line: number;
  column: number;
}

/** Offsets where each line starts (index 0 is line 1). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Field `field` (0-based) of the CSV record that starts on `line`: quotes and embedded newlines understood. */
export function csvFieldPosition(text: string, starts: readonly number[], line: number, field: number): Position | undefined {
  const start = starts[line - 1];
  if (start === undefined) return undefined;
  if (field === 0) return { line, column: 1 };
  let [current, column, index, quoted] = [line, 1, 0, false];
  for (let i = start; i < text.length; i++, column++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') [i, column] = [i + 1, column + 1];
      else if (c === '"') quoted = false;
      else if (c === '\n') [current, column] = [current + 1, 0];
    } else if (c === '"') quoted = true;
    else if (c === ',' && ++index === field) return { line: current, column: column + 1 };
    else if (c === '\n' || c === '\r') return undefined;
  }
  return undefined;
}

/** The column where the value of top-level key `key` starts in a JSON object on one line. */
export function jsonValueColumn(lineText: string, key: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < lineText.length; i++) {
    const c = lineText[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === '"') {
      const end = stringEnd(lineText, i);
      const colon = /^\s*:\s*/.exec(lineText.slice(end + 1));
      if (depth === 1 && colon && JSON.parse(lineText.slice(i, end + 1)) === key) return end + 1 + colon[0].length + 1;
      i = end;
    }
  }
  return undefined;
}

/** Index of the quote closing the JSON string that opens at `open`. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}
