import { parse } from 'csv-parse/sync';
import type { InputIssue } from '../../errors.js';
import { csvProblemText, mixedLineEndings } from './csv-problems.js';
import { csvFieldPosition, lineStarts } from './row-positions.js';

/** Thrown from csv-parse's record callback to stop reading a file of too many rows. */
export const TOO_MANY = Symbol('too many rows');

/** Thrown from csv-parse's skip callback to stop a parse that lost its way: read on from `line`. */
class Resync {
  constructor(readonly line: number) {}
}

type CsvError = Error & { code?: string; lines?: number; empty_lines?: number; index?: number; record?: string[] };

export interface CsvRecords {
  /** The first record (the header), when there is one. No other record is kept: rows.ts reads each again from its line when it is asked for. */
  header: string[] | undefined;
  /** lines[i] is where record i starts (lines[0]: the header's). */
  lines: number[];
  issues: InputIssue[];
}

/**
 * Every record with the line it starts on, and a problem for each record that cannot be read,
 * each at its own line — not only the first — said as a sentence (csv-problems.ts). A file that
 * mixes CRLF and LF line endings is one problem, said as such, before any record is read.
 *
 * Policy, why re-synchronise: after a quoting error (a quote closed before the field ends, a
 * quote never closed) csv-parse's own recovery keeps reading inside the quote, so it reports a
 * "Quote Not Closed" on a later line that has no quote and never sees the records after it. A
 * quote cannot be trusted past its line, so the parse stops there and starts again at the next
 * line, as a person reading the file would. Record lengths are checked here against the header
 * (not by csv-parse, which would take a restarted parse's first record as the reference).
 */
export function csvRecords(text: string, display: string, maxRecords: number): typeof TOO_MANY | CsvRecords {
  const out: CsvRecords = { header: undefined, lines: [], issues: [] };
  const mixed = mixedLineEndings(text);
  if (mixed) return { ...out, issues: [{ file: display, line: mixed.line, message: mixed.message }] };
  const reported = new Set<number>();
  let starts: number[] | undefined;
  const startsOf = () => (starts ??= lineStarts(text));
  const report = (line: number, column: number | undefined, message: string) => {
    // One problem per line: after a quoting error csv-parse may trip again on the same line.
    if (!reported.has(line)) out.issues.push({ file: display, line, column, message });
    reported.add(line);
  };
  for (let from: number | undefined = 1; from !== undefined; ) {
    const offset = startsOf()[from - 1];
    if (offset === undefined || offset >= text.length) break;
    const read = readFrom(text.slice(offset), from - 1, out, maxRecords, (failed, start) => {
      const field = failedField(failed, out.header?.length);
      const at = csvFieldPosition(text, startsOf(), start, field);
      const line = at?.line ?? failed.lines ?? start;
      const offset = at && (startsOf()[at.line - 1] ?? 0) + at.column - 1;
      report(line, at?.column, csvProblemText(failed, { header: out.header, field, text, offset }));
      return line;
    });
    if (read === TOO_MANY) return TOO_MANY;
    from = read;
  }
  return out;
}

/**
 * Parses `text` (the file from line `base + 1` on) into `out`; returns the line to read on from
 * after a quoting error, or undefined at the end. `failed` reports a problem of the record that
 * starts on `start` (lines counted in the whole file) and says the line it was reported at.
 */
function readFrom(
  text: string,
  base: number,
  out: CsvRecords,
  maxRecords: number,
  failed: (error: CsvError, start: number) => number,
): number | typeof TOO_MANY | undefined {
  let [previousEnd, previousEmpty] = [base, 0];
  /** A record starts after the previous one ends and after the empty lines skipped since. */
  const startOf = (at: { lines?: number; empty_lines?: number }) => {
    const [end, empty] = [at.lines === undefined ? previousEnd : base + at.lines, at.empty_lines ?? previousEmpty];
    const start = previousEnd + 1 + (empty - previousEmpty);
    [previousEnd, previousEmpty] = [end, empty];
    return start;
  };
  /** A syntax error: reported at its place, then the parse starts again on the line after it. */
  const lost = (error: CsvError) => {
    const start = startOf(error);
    const inFile = { ...error, lines: error.lines === undefined ? undefined : base + error.lines } as CsvError;
    const line = failed(inFile, start);
    // A quote never closed ran to the end of the file: read on after the line it opened on.
    return new Resync((error.code === 'CSV_QUOTE_NOT_CLOSED' ? line : (inFile.lines ?? line)) + 1);
  };
  try {
    parse(text, {
      bom: base === 0,
      skip_empty_lines: true,
      relax_column_count: true,
      skip_records_with_error: true,
      on_skip: (error) => {
        throw lost((error ?? {}) as CsvError);
      },
      on_record: (record: string[], ctx) => {
        const expected = out.header?.length;
        if (expected !== undefined && record.length !== expected) {
          failed({ name: 'CsvError', code: 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH', record, message: 'record length' }, startOf(ctx));
          return null;
        }
        out.header ??= record;
        if (out.lines.push(startOf(ctx)) > maxRecords) throw TOO_MANY;
        return null;
      },
    });
  } catch (error) {
    if (error === TOO_MANY) return TOO_MANY;
    if (error instanceof Resync) return error.line;
    return lost(error as CsvError).line;
  }
  return undefined;
}

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
