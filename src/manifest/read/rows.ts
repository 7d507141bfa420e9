import { parse } from 'csv-parse/sync';
import type { InputIssue } from '../../errors.js';
import { count, raise } from '../syntax/limits.js';
import { csvRecords, TOO_MANY } from './csv-records.js';
import { csvFieldPosition, jsonValueColumn, lineStarts, type Position } from './row-positions.js';
import { readTextFile } from './text-file.js';

/**
 * The rows a step fans out over, each with the line it came from so a bad value is reported at
 * its place in the CSV or JSONL file (or in the manifest, for inline rows).
 *
 * A file's rows are held as its text and where each row starts, and each row is made again from
 * its text when asked for (`row(i)`). Why: a row object per row, kept as long as the manifest,
 * was most of what planning a 1,000,000-row file held (issue 24); the planner reads each row
 * when it makes that row's jobs, and lets it go.
 */
export interface RowSet {
  source: 'rows' | 'csv' | 'jsonl';
  /** The file the rows live in, as issues name it. */
  file: string;
  /** CSV header, when the rows have a fixed set of columns. */
  columns?: string[];
  /** How many rows. */
  count: number;
  /** Row i (from 0); a file's is made again from its text at each call (equal rows, not the same object). */
  row(i: number): Record<string, unknown>;
  /** The line row i starts on. */
  line(i: number): number;
  /** CSV cells are always text; JSON and YAML values keep their types. */
  text: boolean;
  /** Where field `field` of row `row` was written, when that can be told. */
  locate?: (row: number, field: string) => Position | undefined;
}

/** Every row of `rows`, one at a time, in order. */
export function* eachRow(rows: RowSet): Generator<Record<string, unknown>> {
  for (let i = 0; i < rows.count; i++) yield rows.row(i);
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
  return read.issues.length > 0 ? { issues: read.issues } : csvRows(text, display, read.header, read.lines);
}

function csvRows(text: string, display: string, header: string[] | undefined, lines: number[]): Loaded {
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
  const starts = Uint32Array.from(lines.slice(1));
  const cell = withLines(text, (all, row: number, field: string) => csvFieldPosition(text, all, starts[row] ?? 0, header.indexOf(field)));
  const record = csvRecordReader(text, starts);
  const row = (i: number) => {
    const values = record(i);
    const out: Record<string, unknown> = {};
    for (let c = 0; c < header.length; c++) out[header[c] as string] = values[c];
    return out;
  };
  return { rows: { source: 'csv', file: display, columns: header, count: starts.length, row, line: (i) => starts[i] ?? 0, text: true, locate: cell }, issues: [] };
}

/**
 * Record i of a CSV file already read whole without a problem, from the text between its line
 * and the next record's (splitRecord). A file whose lines end in a lone CR (not read by lines) is
 * parsed once by csv-parse and its records kept.
 */
function csvRecordReader(text: string, lines: Uint32Array): (i: number) => string[] {
  if (/\r(?!\n)/.test(text)) {
    const records = (parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][]).slice(1);
    return (i) => records[i] ?? [];
  }
  const starts = new Uint32Array(lines.length + 1);
  const all = lineStarts(text);
  lines.forEach((line, i) => (starts[i] = all[line - 1] ?? text.length));
  starts[lines.length] = text.length;
  return (i) => {
    let end = starts[i + 1] as number;
    while (end > (starts[i] as number) && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
    return splitRecord(text.slice(starts[i], end));
  };
}

/**
 * The fields of one CSV record that csv-parse read without a problem (so its quoting is sound):
 * split at the commas outside quotes, each quoted field unquoted ("" is one quote). Why not
 * csv-parse again: a parser made per row cost ten times the row (a 100,000-row plan reads each row
 * three times).
 */
export function splitRecord(raw: string): string[] {
  if (!raw.includes('"')) return raw.split(',');
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (raw[i] === '"') {
      let value = '';
      let from = i + 1;
      for (;;) {
        const quote = raw.indexOf('"', from);
        if (quote < 0) throw new Error('CSV record read again with a quote never closed');
        value += raw.slice(from, quote);
        if (raw[quote + 1] !== '"') {
          i = quote + 1;
          break;
        }
        value += '"';
        from = quote + 2;
      }
      fields.push(value);
    } else {
      const comma = raw.indexOf(',', i);
      fields.push(raw.slice(i, comma < 0 ? raw.length : comma));
      i = comma < 0 ? raw.length : comma;
    }
    if (i >= raw.length) return fields;
    i++; // the comma
    if (i === raw.length) return [...fields, ''];
  }
}

/** JSON Lines: one object per non-empty line (each read once here to check it, and again when asked for). */
export async function readJsonl(file: string, display: string, limits: RowLimits): Promise<Loaded> {
  const text = await readText(file, display, limits);
  if (typeof text !== 'string') return { issues: [text] };
  const body = text.replace(/^\uFEFF/, '');
  const offsets: number[] = [];
  const lines: number[] = [];
  const issues: InputIssue[] = [];
  let [line, from] = [0, 0];
  while (from <= body.length) {
    const newline = body.indexOf('\n', from);
    const end = newline < 0 ? body.length : newline;
    const content = lineAt(body, from, end);
    line++;
    if (content.trim()) {
      if (offsets.length + issues.length >= limits.maxRows) return { issues: [tooManyRows(display, limits)] };
      const problem = jsonlProblem(content, display, line);
      if (problem) issues.push(problem);
      else {
        offsets.push(from);
        lines.push(line);
      }
    }
    if (newline < 0) break;
    from = newline + 1;
  }
  const starts = Uint32Array.from(offsets);
  const at = Uint32Array.from(lines);
  const row = (i: number) => {
    const start = starts[i] ?? 0;
    const newline = body.indexOf('\n', start);
    return JSON.parse(lineAt(body, start, newline < 0 ? body.length : newline)) as Record<string, unknown>;
  };
  const value = withLines(text, (all, row: number, field: string) => {
    const line = at[row] ?? 0;
    const column = jsonValueColumn(text.slice(all[line - 1], all[line] ?? text.length).replace(/^\uFEFF/, ''), field);
    return column === undefined ? undefined : { line, column };
  });
  return { rows: { source: 'jsonl', file: display, count: starts.length, row, line: (i) => at[i] ?? 0, text: false, locate: value }, issues };
}

/** A line's text without its line ending (LF, or CRLF). */
const lineAt = (text: string, from: number, end: number) => text.slice(from, end > from && text[end - 1] === '\r' ? end - 1 : end);

/** Why a non-empty line is not a row: not JSON, or not an object. */
function jsonlProblem(content: string, display: string, line: number): InputIssue | undefined {
  try {
    const value: unknown = JSON.parse(content);
    return value === null || typeof value !== 'object' || Array.isArray(value) ? { file: display, line, message: 'JSONL: each line must be a JSON object' } : undefined;
  } catch (error) {
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    return {
      file: display,
      line,
      column: at === undefined ? undefined : Number(at) + 1,
      message: `JSONL: ${(error as Error).message.replace(/ in JSON at position \d+.*$/, '')}`,
    };
  }
}
