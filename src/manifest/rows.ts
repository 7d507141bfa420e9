import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { InputIssue } from '../errors.js';
import { csvFieldPosition, jsonValueColumn, lineStarts, type Position } from './row-positions.js';

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

async function readText(file: string, display: string): Promise<string | InputIssue> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { file: display, message: code === 'ENOENT' ? 'file not found' : `cannot read: ${String(error)}` };
  }
}

/** A CSV with a header row; quoting, embedded newlines and a BOM handled by csv-parse. */
export async function readCsv(file: string, display: string): Promise<Loaded> {
  const text = await readText(file, display);
  if (typeof text !== 'string') return { issues: [text] };
  const records: string[][] = [];
  const lines: number[] = [];
  let previousEnd = 0;
  let previousEmpty = 0;
  try {
    parse(text, {
      bom: true,
      skip_empty_lines: true,
      on_record: (record: string[], ctx) => {
        // A record starts after the previous one ends and after the empty lines skipped since.
        lines.push(previousEnd + 1 + (ctx.empty_lines - previousEmpty));
        previousEnd = ctx.lines;
        previousEmpty = ctx.empty_lines;
        records.push(record);
        return null;
      },
    });
  } catch (error) {
    const failed = error as CsvError;
    const start = previousEnd + 1 + ((failed.empty_lines ?? previousEmpty) - previousEmpty);
    const at = csvFieldPosition(text, lineStarts(text), start, failedField(failed, records[0]?.length));
    return { issues: [{ file: display, line: at?.line ?? failed.lines, column: at?.column, message: `CSV: ${failed.message}` }] };
  }
  const [header, ...body] = records;
  if (!header) return { issues: [{ file: display, line: 1, message: 'CSV: no header row' }] };
  const rows = body.map((record) => {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < header.length; c++) row[header[c] as string] = record[c];
    return row;
  });
  const starts = lines.slice(1);
  const cell = withLines(text, (all, row: number, field: string) => csvFieldPosition(text, all, starts[row] ?? 0, header.indexOf(field)));
  return { rows: { source: 'csv', file: display, columns: header, rows, lines: starts, text: true, locate: cell }, issues: [] };
}

type CsvError = Error & { code?: string; lines?: number; empty_lines?: number; index?: number; record?: string[] };

/**
 * The field a csv-parse error is about: the first extra one (or the last) of a record of the
 * wrong length; the field being read for a quoting error.
 */
function failedField(error: CsvError, expected: number | undefined): number {
  if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' && error.record && expected !== undefined) {
    return Math.min(expected, error.record.length - 1);
  }
  return error.index ?? 0;
}

/** JSON Lines: one object per non-empty line. */
export async function readJsonl(file: string, display: string): Promise<Loaded> {
  const text = await readText(file, display);
  if (typeof text !== 'string') return { issues: [text] };
  const rows: Record<string, unknown>[] = [];
  const lines: number[] = [];
  const issues: InputIssue[] = [];
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
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
  });
  const value = withLines(text, (all, row: number, field: string) => {
    const line = lines[row] ?? 0;
    const column = jsonValueColumn(text.slice(all[line - 1], all[line] ?? text.length).replace(/^\uFEFF/, ''), field);
    return column === undefined ? undefined : { line, column };
  });
  return { rows: { source: 'jsonl', file: display, rows, lines, text: false, locate: value }, issues };
}
