import { dirname, join, relative, resolve, sep } from 'node:path';
import { writeAtomically } from '../download/atomic-write.js';
import { renderReportChunks } from './html/render-report.js';
import { buildReportData, type ReportInput } from './report-data.js';
import { resultsCsvLines } from './results-files.js';
import { resultsJsonChunks } from './results-json.js';

export interface WriteReportInput extends ReportInput {
  /** Where the HTML goes; results.csv and results.json go beside it. @default OUTPUTS/report/index.html */
  out?: string;
}

export interface WrittenReport {
  html: string;
  csv: string;
  json: string;
  jobs: number;
  outputs: number;
}

/** The report's folder inside the outputs folder: `OUTPUTS/report/`. */
export const REPORT_DIR = 'report';

/**
 * Writes the report (index.html) and results.csv / results.json from the plan and the state
 * database; each file appears whole or not at all (written aside, then renamed). Called at the
 * end of every run — whatever its outcome — and by `reelpipe report`. Returns the paths written.
 */
export async function writeRunReport(input: WriteReportInput): Promise<WrittenReport> {
  const html = resolve(input.out ?? join(input.plan.outputsDir, REPORT_DIR, 'index.html'));
  const data = await buildReportData(input);
  const folder = dirname(html);
  const csv = join(folder, 'results.csv');
  const json = join(folder, 'results.json');
  // Written side by side: each is made and written at once, and their fsyncs wait for the disk together.
  await Promise.all([
    write(html, renderReportChunks(data, { outputsHref: hrefTo(folder, data.outputsDir) })),
    write(csv, resultsCsvLines(data)),
    write(json, resultsJsonChunks(data)),
  ]);
  return { html, csv, json, jobs: data.jobs.length, outputs: data.totals.outputs };
}

/** Bytes gathered before each write of a report file made of chunks. */
const BATCH_BYTES = 1 << 20;

/**
 * Writes `text`, or its chunks gathered into writes of about 1 MB: a big report is never one
 * string. Why a buffer the chunks are encoded into: joining them into strings, then converting
 * each to bytes, allocated the file's size three times over (a 10,000-job report is 12 MB).
 * Each chunk is encoded on its own, so a chunk is whole text: it never ends inside a surrogate
 * pair (the generators yield lines and whole JSON texts).
 */
const write = (path: string, text: string | Iterable<string>) =>
  writeAtomically(path, async (file) => {
    if (typeof text === 'string') return file.write(text);
    const batch = Buffer.allocUnsafe(BATCH_BYTES);
    let used = 0;
    for (const chunk of text) {
      // A UTF-16 unit takes at most 3 bytes in UTF-8: a chunk that might not fit goes after the batch, or alone.
      if (used + chunk.length * 3 > BATCH_BYTES) {
        if (used > 0) file.write(batch.subarray(0, used));
        used = 0;
        if (chunk.length * 3 > BATCH_BYTES) {
          file.write(chunk);
          continue;
        }
      }
      used += batch.write(chunk, used);
    }
    // The file's writes are synchronous: the batch is written before it is filled again.
    if (used > 0) file.write(batch.subarray(0, used));
  });

/** The outputs folder as a relative address from `folder`, ending in `/` (`../`, `./`, `../../out/demo/`). */
export function hrefTo(folder: string, outputsDir: string): string {
  const rel = relative(folder, resolve(outputsDir)).split(sep).map(encodeURIComponent).join('/');
  return rel === '' ? './' : `${rel}/`;
}
