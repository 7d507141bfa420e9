import { readFileSync, statSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { InputIssue } from '../../errors.js';
import { formatCount } from '../../util/format.js';
import type { Decision } from './resolve-doubt.js';

/**
 * Lines a `resolve --from` file may hold. Why a bound: each line may cost a GET at the service,
 * and every decision is recorded in one transaction; a longer file is a mistake, or wants splitting.
 */
export const MAX_DECISION_LINES = 10_000;
/** Bytes of a `resolve --from` file: 10,000 lines of a long label and a remote id fit well within it. */
export const MAX_DECISION_BYTES = 4 * 1024 * 1024;

/** One line of the file: the job (its key or label) and what the operator says of it. */
export interface DecisionLine {
  line: number;
  /** The job's key or label, as written. */
  name: string;
  decision: Decision;
}

const ACCEPTED = '`JOB,REMOTE_ID` (it exists: adopt it) or `JOB,absent` (nothing was created), JOB being its key or label';

/**
 * Reads a `resolve --from` file: CSV lines `JOB,REMOTE_ID` or `JOB,absent` (quotes for a label
 * with a comma); blank lines and lines starting with `#` are skipped. Returns every line with
 * its number, and a located problem (`display`, line) for each line that is not one of those —
 * or for a file over MAX_DECISION_BYTES or MAX_DECISION_LINES, which is not read further.
 */
export function readDecisionFile(path: string, display: string): { lines: DecisionLine[]; issues: InputIssue[] } {
  const refused = (message: string, line?: number) => ({ lines: [], issues: [{ file: display, ...(line ? { line } : {}), message }] });
  let text: string;
  try {
    const bytes = statSync(path).size;
    if (bytes > MAX_DECISION_BYTES) return refused(`${formatCount(bytes)} bytes: a --from file holds at most ${MAX_DECISION_BYTES / 1024 / 1024} MiB (and ${formatCount(MAX_DECISION_LINES)} lines); split it`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return refused(`cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const count = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (count > MAX_DECISION_LINES) return refused(`more than ${formatCount(MAX_DECISION_LINES)} lines (${formatCount(count)}): a --from file holds at most ${formatCount(MAX_DECISION_LINES)}; split it`, MAX_DECISION_LINES + 1);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    const options = { bom: true, comment: '#', comment_no_infix: true, skip_empty_lines: true, relax_column_count: true, trim: true, info: true } as const;
    records = parse(text, options) as unknown as typeof records;
  } catch (error) {
    const at = (error as { lines?: number }).lines;
    return refused(`CSV: ${(error as Error).message}; each line is ${ACCEPTED}`, at);
  }
  const lines: DecisionLine[] = [];
  const issues: InputIssue[] = [];
  for (const { record, info } of records) {
    const [name = '', said = ''] = record;
    if (record.length !== 2 || name === '' || said === '') {
      issues.push({ file: display, line: info.lines, message: `expected ${ACCEPTED}; got ${JSON.stringify(record.join(','))}` });
      continue;
    }
    lines.push({ line: info.lines, name, decision: said.toLowerCase() === 'absent' ? { absent: true } : { adopt: said } });
  }
  return { lines, issues };
}
