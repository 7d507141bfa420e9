/**
 * What is wrong with a CSV record, said as a sentence a person can act on: the column, what is
 * wrong in plain words and how to write it instead. Never csv-parse's own text ("Invalid Closing
 * Quote: got … instead of delimiter, record delimiter, trimable character (if activated) or
 * comment"), which names parser states, not the file; and never a raw newline or carriage return,
 * so every problem stays one line of `validate`'s output.
 */

/** The parts of a csv-parse error (or of our record-length check) a sentence is made from. */
export interface CsvFailure {
  code?: string;
  /** The record read, for a record of the wrong length. */
  record?: string[];
}

/** Where the failing field is: its column (0-based), and where it starts in the file's text, when known. */
export interface CsvFailurePlace {
  header: readonly string[] | undefined;
  field: number;
  text: string;
  offset: number | undefined;
}

/** How a quote is written inside a value, said where a quote is the problem. */
const QUOTE_TWICE = 'a quote inside a quoted value is written twice: "say ""hi"""';

export function csvProblemText(failure: CsvFailure, place: CsvFailurePlace): string {
  const column = columnName(place.header, place.field);
  switch (failure.code) {
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_OPENING_QUOTE':
      return `CSV: ${column} has a quote (") in a value that is not in quotes; put the value in quotes and write each quote in it twice${rewritten(place)}`;
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return `CSV: in ${column}, a closing quote is followed by ${describeChar(charAfterQuotedField(place))} instead of a comma or the end of the line; ${QUOTE_TWICE}`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return `CSV: ${column} opens a quote (") that is never closed, so the rest of the file would be one value; add the closing quote where the value ends (${QUOTE_TWICE})`;
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return recordLength(failure.record?.length ?? 0, place.header);
    default:
      return `CSV: this line cannot be read as CSV; check its commas and quotes (${QUOTE_TWICE})`;
  }
}

/** Longest value quoted back in a fix. Why: a whole paragraph of script would drown the line. */
const REWRITE_MAX = 40;

/** `: "x""y"` (the value as it should be written), or nothing when it is too long to quote back. */
function rewritten(place: CsvFailurePlace): string {
  if (place.offset === undefined) return '';
  const raw = /^[^,\r\n]*/.exec(place.text.slice(place.offset))?.[0] ?? '';
  return raw.length > 0 && raw.length <= REWRITE_MAX ? `: "${raw.replaceAll('"', '""')}"` : '';
}

function recordLength(got: number, header: readonly string[] | undefined): string {
  const expected = header?.length ?? 0;
  const columns = `the header has ${plural(expected, 'column')} (${shortList(header ?? [])})`;
  if (got > expected) return `CSV: this row has ${plural(got, 'value')} but ${columns}; a value holding a comma goes in quotes: "Lisbon, Portugal"`;
  return `CSV: this row has ${plural(got, 'value')} but ${columns}; give each column a value (an empty one is nothing between two commas: a,,c)`;
}

/** `column script`, or `field 3` where the header is not known yet (the header row itself). */
function columnName(header: readonly string[] | undefined, field: number): string {
  const name = header?.[field];
  return name === undefined ? `field ${field + 1}` : `column ${name}`;
}

function describeChar(char: string | undefined): string {
  if (char === undefined) return 'more text';
  if (char === ' ') return 'a space';
  if (char === '\t') return 'a tab';
  return JSON.stringify(char);
}

function shortList(names: readonly string[]): string {
  return names.length > 8 ? `${names.slice(0, 8).join(', ')}, …` : names.join(', ');
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The character right after the quoted field that opens at the place's offset (a doubled quote
 * inside it is part of the value); undefined when the field is not quoted or never closes.
 */
function charAfterQuotedField({ text, offset }: CsvFailurePlace): string | undefined {
  if (offset === undefined || text[offset] !== '"') return undefined;
  for (let i = offset + 1; i < text.length; i++) {
    if (text[i] !== '"') continue;
    if (text[i + 1] === '"') i++;
    else return text[i + 1];
  }
  return undefined;
}

type Ending = 'CRLF' | 'LF';
interface Run {
  ending: Ending;
  from: number;
  to: number;
}

/** How many runs of one kind of line ending a message lists before it says "and so on". */
const RUNS_SAID = 3;

/**
 * A file whose records end some in CRLF and some in LF: the line where the ending first changes,
 * and the sentence saying so; undefined when every record ends alike. Line breaks inside a quoted
 * value are not record endings and are not counted (a spreadsheet writes CRLF between records and
 * LF inside a cell).
 *
 * Why a problem of its own: csv-parse takes the first ending it meets as the only one, so a mix
 * fails in confusing ways — LF lines after CRLF ones run together into one record of too many
 * values; CRLF lines after LF ones pass with a carriage return glued to their last value, or fail
 * on a quote "followed by" it. The cause is one setting of the editor, and saying so is the fix.
 */
export function mixedLineEndings(text: string): { line: number; message: string } | undefined {
  const runs: Run[] = [];
  let [line, quoted] = [1, false];
  for (let i = text.indexOf('\n'), from = 0; i >= 0; from = i + 1, i = text.indexOf('\n', from)) {
    for (let q = text.indexOf('"', from); q >= 0 && q < i; q = text.indexOf('"', q + 1)) quoted = !quoted;
    if (!quoted) {
      const ending: Ending = text[i - 1] === '\r' ? 'CRLF' : 'LF';
      const last = runs.at(-1);
      if (last?.ending === ending) last.to = line;
      else runs.push({ ending, from: line, to: line });
    }
    line++;
  }
  const [first, second] = runs;
  if (!first || !second) return undefined;
  const said = runs.slice(0, RUNS_SAID).map((run, i) => `${lines(run)}${i === 0 ? (run.from === run.to ? ' ends' : ' end') : ''} in ${run.ending}`);
  const more = runs.length > RUNS_SAID ? `, and so on (${runs.length - 1} changes)` : '';
  return { line: second.from, message: `CSV: the file mixes Windows (CRLF) and Unix (LF) line endings: ${said.join(', ')}${more}; save it with one kind` };
}

const lines = (run: Run) => (run.from === run.to ? `line ${run.from}` : `lines ${run.from}–${run.to}`);
