import type { ReportData, ReportJob } from './report-data.js';
import { utcIso } from '../util/time-format.js';

/**
 * results.csv: one line per job, from the input row it was made from (its origin and values) to
 * what became of it (state, label, remote id, credits, files) — results.json has the same per job
 * (results-json.ts). The CSV is what a marketing-ops user loads into a spreadsheet: the row's own
 * columns come first, verbatim, so it can be matched with the input; reelpipe's columns follow.
 */

const OURS = ['step', 'label', 'state', 'key', 'remote_id', 'credits_estimated', 'credits_used', 'over_high_estimate', 'outputs', 'reason', 'failed_items', 'submitted_at', 'finished_at', 'downloaded_at'] as const;


/** results.csv whole (for tests and small reports); writing goes through the chunks. */
export function resultsCsv(data: Pick<ReportData, 'jobs'>): string {
  return [...resultsCsvLines(data)].join('');
}

/** results.csv a line at a time (each ending in CRLF), its jobs held: the columns are known before the first line. */
export function* resultsCsvLines(data: Pick<ReportData, 'jobs'>): Generator<string> {
  const columns = new CsvColumns();
  for (const job of data.jobs) columns.add(job);
  yield columns.header();
  for (const job of data.jobs) yield csvParts(job, columns).join('');
}

/**
 * results.csv's columns: `origin`, every key of the jobs' rows, then of their matrix combinations
 * (`matrix.NAME`), in order of first appearance; then ours. Known whole only once every job is
 * seen: a job's line made before then has the cells of the columns known at its time, and every
 * column found later is one its row does not have (csv-scratch.ts).
 */
export class CsvColumns {
  readonly rows: string[] = [];
  readonly matrix: string[] = [];
  private readonly seen = { rows: new Set<string>(), matrix: new Set<string>() };
  private readonly last: { row: unknown; matrix: unknown } = { row: null, matrix: null };

  add(job: Pick<ReportJob, 'row' | 'matrix'>): void {
    // Rows of one file share their keys: skip the object just seen (a matrix repeats its rows).
    if (job.row && job.row !== this.last.row) take(job.row, this.rows, this.seen.rows);
    if (job.matrix && job.matrix !== this.last.matrix) take(job.matrix, this.matrix, this.seen.matrix);
    this.last.row = job.row ?? this.last.row;
    this.last.matrix = job.matrix ?? this.last.matrix;
  }

  /** The header line. A row column may share a name with one of ours: the user's keeps its name, ours is prefixed. */
  header(): string {
    const inputs = ['origin', ...this.rows, ...this.matrix.map((c) => `matrix.${c}`)];
    const taken = new Set(inputs);
    const ours = OURS.map((c) => (taken.has(c) ? `reelpipe_${c}` : c));
    return `${[...inputs, ...ours].map(cell).join(',')}\r\n`;
  }
}

function take(values: Record<string, unknown>, into: string[], seen: Set<string>): void {
  for (const key of Object.keys(values)) {
    if (seen.has(key)) continue;
    seen.add(key);
    into.push(key);
  }
}

/**
 * `job`'s line with `columns` as they are now, in three parts: its origin and row's cells, its
 * matrix's cells, ours (the last ending in CRLF). Built by appending, not as an array of cells
 * joined: 100,000 lines make no array each.
 */
export function csvParts(job: ReportJob, columns: CsvColumns): [row: string, matrix: string, ours: string] {
  let row = cell(job.origin);
  for (const c of columns.rows) row += `,${cell(job.row?.[c])}`;
  let matrix = '';
  for (const c of columns.matrix) matrix += `,${cell(job.matrix?.[c])}`;
  // A state word, a figure and a time never need quoting: they are written as they are.
  let ours = `,${cell(job.step)},${cell(job.label)},${job.state},${cell(job.key)},${cell(job.remoteId)},${figure(job.estimate?.expected)}`;
  ours += `,${figure(job.used)},${job.overHigh ? 'yes' : ''},${cell(pathsOf(job))},${cell(defused(job.reason))},${job.items.length === 0 ? '' : cell(defused(failedItemsText(job)))}`;
  return [row, matrix, `${ours},${time(job.submittedAt)},${time(job.finishedAt)},${time(job.downloadedAt)}\r\n`];
}

const figure = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));
const time = (ms: number | null): string => (ms === null ? '' : utcIso(ms));
/** The job's files, separated by spaces (most jobs have one, or none). */
const pathsOf = (job: ReportJob): string => (job.outputs.length === 1 ? (job.outputs[0] as ReportJob['outputs'][number]).path : job.outputs.map((o) => o.path).join(' '));

/** `red-tile: too large; blue: no ad` — a job's failed items and their reasons, in one cell; null when none failed. */
function failedItemsText(job: ReportJob): string | null {
  const failed = job.items.filter((i) => i.state === 'failed');
  return failed.length === 0 ? null : failed.map((i) => `${i.item}: ${i.reason ?? 'no reason given'}`).join('; ');
}

/** RFC 4180: quoted when it holds a comma, quote, line break or edge space; null and undefined are empty. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Policy: the service's reasons are not the user's input, and a spreadsheet runs a cell that
 * starts with = + - @ as a formula; such a reason gets a leading apostrophe, which spreadsheets
 * show as text. The user's own row values are left verbatim, as in the file they came from.
 */
function defused(text: string | null): string | null {
  return text !== null && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
