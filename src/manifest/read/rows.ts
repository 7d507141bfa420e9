import type { InputIssue } from '../../errors.js';
import { count, raise } from '../syntax/limits.js';
import { csvRecords, TOO_MANY } from './csv-records.js';
import { csvFieldPosition, jsonValueColumn, lineStarts, type Position } from './row-positions.js';
import { readTextFile } from './text-file.js';

/**
 * The rows a step fans out over, each with the line it came from so a bad value is reported at
 * its place in the CSV or JSONL file (or in the manifest, for inline rows).
 */
export interface RowSet {
  source: 'rows' | 'csv' | 'jsonl';
  /** The file the rows live in, as issues name it. */
  file: string;
  /** CSV header, when the rows have a fixed set of columns. */
  columns?: string[];
  rows: Record<string, unknown>[];
  /** lines[i] is where rows[i] starts. */
  lines: number[];
  /** CSV cells are always text; JSON and YAML values keep their types. */
  text: boolean;
  /** Where field `field` of row `row` was written, when that can be told. */
  locate?: (row: number, field: string) => Position | undefined;
}

/** Builds the line index on first use: most files never have a problem to point at. */
function withLines(text: string, find: (starts: readonly number[], row: number, field: string) => Position | undefined) {
  let starts: number[] | undefined;
  return (row: number, field: string) => find((starts ??= lineStarts(text)), row, field);
}

type Loaded = { rows?: RowSet; issues: InputIssue[] };

/** How much a row file may hold: its size, and its rows (each row is at least one job). */
export interface RowLimits {
  /** Largest file read. @default none: the manifest's limits.data_file_mb is always given */
  maxBytes: number;
  /** Most rows read before the file is refused (the manifest's jobs per step). */
  maxRows: number;
}

async function readText(file: string, display: string, limits: RowLimits): Promise<string | InputIssue> {
  const read = await readTextFile(file, limits.maxBytes, raise('data_file_mb'));
  return 'text' in read ? read.text : { file: display, ...read.problem };
}

/** Each row is a job: a file of more rows than a step may have jobs is refused before it is all read. */
const tooManyRows = (display: string, limits: RowLimits): InputIssue => ({
  file: display,
  message: `more than ${count(limits.maxRows)} rows, and each row is a job: above the limit of ${count(limits.maxRows)} jobs per step; ${raise('jobs_per_step')}`,
});

/**
 * A CSV with a header row; quoting, embedded newlines and a BOM handled by csv-parse. Every
 * record that cannot be read is reported at its own line, not only the first (csv-records.ts).
 */
export async function readCsv(file: string, display: string, limits: RowLimits): Promise<Loaded> {
  const text = await readText(file, display, limits);
  if (typeof text !== 'string') return { issues: [text] };
  const read = csvRecords(text, display, limits.maxRows + 1);
  if (read === TOO_MANY) return { issues: [tooManyRows(display, limits)] };
  return read.issues.length > 0 ? { issues: read.issues } : csvRows(text, display, read.records, read.lines);
}

function csvRows(text: string, display: string, records: string[][], lines: number[]): Loaded {
  const [header, ...body] = records;
  if (!header) return { issues: [{ file: display, line: 1, message: 'CSV: no header row' }] };
  const repeated = header.flatMap((name, c) => (header.indexOf(name) === c ? [] : [c]));
  if (repeated.length > 0) {
    return {
      issues: repeated.map((c) => ({
        ...csvFieldPosition(text, lineStarts(text), lines[0] ?? 1, c),
        file: display,
        message: `CSV: column "${header[c]}" appears twice in the header (first as column ${header.indexOf(header[c] as string) + 1}): a row's value for it would be ambiguous`,
      })),
    };
  }
  const rows = body.map((record) => {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < header.length; c++) row[header[c] as string] = record[c];
    return row;
  });
  const starts = lines.slice(1);
  const cell = withLines(text, (all, row: number, field: string) => csvFieldPosition(text, all, starts[row] ?? 0, header.indexOf(field)));
  return { rows: { source: 'csv', file: display, columns: header, rows, lines: starts, text: true, locate: cell }, issues: [] };
}

/** JSON Lines: one object per non-empty line. */
export async function readJsonl(file: string, display: string, limits: RowLimits): Promise<Loaded> {
  const text = await readText(file, display, limits);
  if (typeof text !== 'string') return { issues: [text] };
  const rows: Record<string, unknown>[] = [];
  const lines: number[] = [];
  const issues: InputIssue[] = [];
  const fileLines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < fileLines.length; index++) {
    const line = fileLines[index] as string;
    if (!line.trim()) continue;
    if (rows.length + issues.length >= limits.maxRows) return { issues: [tooManyRows(display, limits)] };
    try {
      const value: unknown = JSON.parse(line);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        issues.push({ file: display, line: index + 1, message: 'JSONL: each line must be a JSON object' });
      } else {
        rows.push(value as Record<string, unknown>);
        lines.push(index + 1);
      }
    } catch (error) {
      const at = /position (\d+)/.exec((error as Error).message)?.[1];
      issues.push({
        file: display,
        line: index + 1,
        column: at === undefined ? undefined : Number(at) + 1,
        message: `JSONL: ${(error as Error).message.replace(/ in JSON at position \d+.*$/, '')}`,
      });
    }
  }
  const value = withLines(text, (all, row: number, field: string) => {
    const line = lines[row] ?? 0;
    const column = jsonValueColumn(text.slice(all[line - 1], all[line] ?? text.length).replace(/^\uFEFF/, ''), field);
    return column === undefined ? undefined : { line, column };
  });
  return { rows: { source: 'jsonl', file: display, rows, lines, text: false, locate: value }, issues };
}
