import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { InputIssue } from '../errors.js';

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
    const where = (error as { lines?: number }).lines;
    return { issues: [{ file: display, line: where, message: `CSV: ${(error as Error).message}` }] };
  }
  const [header, ...body] = records;
  if (!header) return { issues: [{ file: display, line: 1, message: 'CSV: no header row' }] };
  const rows = body.map((record) => {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < header.length; c++) row[header[c] as string] = record[c];
    return row;
  });
  return { rows: { source: 'csv', file: display, columns: header, rows, lines: lines.slice(1), text: true }, issues: [] };
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
  return { rows: { source: 'jsonl', file: display, rows, lines, text: false }, issues };
}
