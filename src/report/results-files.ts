import type { ReportData, ReportJob } from './report-data.js';
import { utcIsoOrNull as iso } from '../util/time-format.js';

/**
 * results.csv: one line per job, from the input row it was made from (its origin and values) to
 * what became of it (state, label, remote id, credits, files) — results.json has the same per job
 * (results-json.ts). The CSV is what a marketing-ops user loads into a spreadsheet: the row's own
 * columns come first, verbatim, so it can be matched with the input; reelpipe's columns follow.
 */

const OURS = ['step', 'label', 'state', 'key', 'remote_id', 'credits_estimated', 'credits_used', 'over_high_estimate', 'outputs', 'reason', 'failed_items', 'submitted_at', 'finished_at', 'downloaded_at'] as const;


/** results.csv whole (for tests and small reports); writing goes through the chunks. */
export function resultsCsv(data: ReportData): string {
  return [...resultsCsvLines(data)].join('');
}

/** results.csv a line at a time (each ending in CRLF): a 50,000-job file is never one string. */
export function* resultsCsvLines(data: ReportData): Generator<string> {
  const rowColumns = columnsOf(data.jobs, (j) => j.row);
  const matrixColumns = columnsOf(data.jobs, (j) => j.matrix);
  const inputs = ['origin', ...rowColumns, ...matrixColumns.map((c) => `matrix.${c}`)];
  // A row column may share a name with one of ours: the user's keeps its name, ours is prefixed.
  const taken = new Set(inputs);
  const ours = OURS.map((c) => (taken.has(c) ? `reelpipe_${c}` : c));
  yield `${[...inputs, ...ours].map(cell).join(',')}\r\n`;
  for (const job of data.jobs) {
    // Built by appending, not as an array of cells joined: 10,000 lines made no array each.
    let line = cell(job.origin);
    for (const c of rowColumns) line += `,${cell(job.row?.[c])}`;
    for (const c of matrixColumns) line += `,${cell(job.matrix?.[c])}`;
    line += `,${cell(job.step)},${cell(job.label)},${cell(job.state)},${cell(job.key)},${cell(job.remoteId)},${cell(job.estimate?.expected)}`;
    line += `,${cell(job.used)},${job.overHigh ? 'yes' : ''},${cell(job.outputs.map((o) => o.path).join(' '))},${cell(defused(job.reason))},${cell(defused(failedItemsText(job)))}`;
    yield `${line},${cell(iso(job.submittedAt))},${cell(iso(job.finishedAt))},${cell(iso(job.downloadedAt))}\r\n`;
  }
}

/** `red-tile: too large; blue: no ad` — a job's failed items and their reasons, in one cell; null when none failed. */
function failedItemsText(job: ReportJob): string | null {
  const failed = job.items.filter((i) => i.state === 'failed');
  return failed.length === 0 ? null : failed.map((i) => `${i.item}: ${i.reason ?? 'no reason given'}`).join('; ');
}

/** Every key of the jobs' rows (or combinations), in order of first appearance. */
function columnsOf(jobs: readonly ReportJob[], of: (job: ReportJob) => Record<string, unknown> | null): string[] {
  const seen = new Set<string>();
  let last: Record<string, unknown> | null = null;
  for (const job of jobs) {
    const values = of(job);
    // Rows of one file share their keys: skip the object just seen (a matrix repeats its rows).
    if (!values || values === last) continue;
    last = values;
    for (const key of Object.keys(values)) seen.add(key);
  }
  return [...seen];
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
