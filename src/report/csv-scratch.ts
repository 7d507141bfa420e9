import type { ChunkWriter } from './chunk-writer.js';
import type { ReportJob } from './report-data.js';
import { csvParts, CsvColumns } from './results-files.js';

/** Where a line's cells of the columns found after it go: a byte UTF-8 text never holds. */
const MARK = 0xff;
const MARK_BYTES = Uint8Array.of(MARK);

/**
 * results.csv as the jobs come, a window at a time: its columns (the keys of the jobs' rows) are
 * known only once every job has been seen, and a streamed plan's jobs are made once (a second
 * pass would make every job again). So each job's line is written, with the columns known then,
 * to a scratch file — a mark after its row's cells and one after its matrix's — and the file is
 * made at the end: the header, then each line with each mark replaced by the empty cells of the
 * columns found after it (a column found later is one its job does not have).
 */
export class CsvScratch {
  readonly columns = new CsvColumns();
  /** Runs of lines written with the same columns known. */
  private readonly runs: { lines: number; rows: number; matrix: number }[] = [];

  constructor(private readonly out: ChunkWriter) {}

  add(job: ReportJob): void {
    this.columns.add(job);
    const [row, matrix, ours] = csvParts(job, this.columns);
    this.out.text(row);
    this.out.bytes(MARK_BYTES);
    this.out.text(matrix);
    this.out.bytes(MARK_BYTES);
    this.out.text(ours);
    const [rows, columns] = [this.columns.rows.length, this.columns.matrix.length];
    const last = this.runs.at(-1);
    if (last && last.rows === rows && last.matrix === columns) last.lines++;
    else this.runs.push({ lines: 1, rows, matrix: columns });
  }

  /** results.csv to `to`: the header, then the scratch file's bytes (`blocks`, in order) with its marks filled. */
  assemble(blocks: Iterable<Buffer>, to: ChunkWriter): void {
    const { rows, matrix } = this.columns;
    to.text(this.columns.header());
    const pads = this.runs.map((run) => [','.repeat(rows.length - run.rows), ','.repeat(matrix.length - run.matrix)] as const);
    let [run, left, second] = [0, this.runs[0]?.lines ?? 0, false];
    for (const block of blocks) {
      let from = 0;
      for (let at = block.indexOf(MARK); at >= 0; at = block.indexOf(MARK, from)) {
        to.bytes(block.subarray(from, at));
        to.text((pads[run] as readonly [string, string])[second ? 1 : 0]);
        from = at + 1;
        if (second && --left === 0) left = this.runs[++run]?.lines ?? 0;
        second = !second;
      }
      to.bytes(block.subarray(from));
    }
  }
}
