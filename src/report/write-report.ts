import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { writeAtomically, type FileSink } from '../download/atomic-write.js';
import { ChunkWriter } from './chunk-writer.js';
import { CsvScratch } from './csv-scratch.js';
import { ClientJobs, PAGE_TAIL, pageHead } from './html/render-report.js';
import type { ReportHead, ReportInput } from './report-data.js';
import { readReportOutline, type ReportOutline } from './report-outline.js';
import { ReportTally, moneyTotals } from './report-tally.js';
import { reportWindows } from './report-windows.js';
import { jsonEnd, jsonHead, jsonJob } from './results-json.js';
import { ScratchFile } from './scratch-file.js';

export interface WriteReportInput extends ReportInput {
  /** Where the HTML goes; results.csv and results.json go beside it. @default OUTPUTS/report/index.html */
  out?: string;
  /** Jobs read from the state and written at a time (report-windows.ts). @default WINDOW_JOBS */
  windowJobs?: number;
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
 *
 * Made a window of jobs at a time, in one pass over the plan (report-windows.ts): what is held
 * for the whole report is its outline (report-outline.ts), its sums (report-tally.ts) and a bit
 * a job, never every job's facts (at 100,000 jobs they were ~150 MB). results.json is written as
 * the jobs come; the HTML's jobs' data and results.csv's lines go to scratch files, since what
 * goes before them in their file is known only once every job is read, and are copied in after.
 */
export async function writeRunReport(input: WriteReportInput): Promise<WrittenReport> {
  const html = resolve(input.out ?? join(input.plan.outputsDir, REPORT_DIR, 'index.html'));
  const folder = dirname(html);
  const [csv, json] = [join(folder, 'results.csv'), join(folder, 'results.json')];
  const outline = await readReportOutline(input);
  mkdirSync(folder, { recursive: true });
  const scratch = { html: new ScratchFile(html), csv: new ScratchFile(csv) };
  let rest: Promise<unknown> | undefined;
  try {
    let head: ReportHead | undefined;
    await writeAtomically(json, async (file) => {
      const made = await writeJobs(input, outline, file, scratch);
      head = made.head;
      const options = { outputsHref: hrefTo(folder, outline.base.outputsDir) };
      // The HTML and the CSV are put together while this file's fsync waits for the disk.
      rest = Promise.all([
        writeAtomically(html, async (to) => batched(to, (w) => {
          w.text(pageHead(made.head, options));
          for (const block of scratch.html.blocks()) w.bytes(block);
          w.text(PAGE_TAIL);
        })),
        writeAtomically(csv, async (to) => batched(to, (w) => made.csv.assemble(scratch.csv.blocks(), w))),
      ]);
      // Awaited below; handled now, so that one failing while this file's fsync waits is not left unhandled.
      rest.catch(() => undefined);
    });
    await rest;
    return { html, csv, json, jobs: head?.totals.jobs ?? 0, outputs: head?.totals.outputs ?? 0 };
  } finally {
    // The scratch files are read until the HTML and the CSV are written, whether or not results.json was.
    await rest?.catch(() => undefined);
    scratch.html.remove();
    scratch.csv.remove();
  }
}

/**
 * The one pass over the plan's jobs, a window at a time: results.json's head and each job to
 * `file`, the HTML's data of each job and results.csv's lines to their scratch files, every job
 * summed. Returns the head the sums make and the CSV's lines, to be put together.
 */
async function writeJobs(input: WriteReportInput, outline: ReportOutline, file: FileSink, scratch: { html: ScratchFile; csv: ScratchFile }): Promise<{ head: ReportHead; csv: CsvScratch }> {
  const { plan } = input;
  const json = new ChunkWriter((data) => file.write(data));
  const tally = new ReportTally(plan);
  const client = new ClientJobs(plan.steps.map((s) => s.id));
  const csv = new CsvScratch(scratch.csv.writer);
  json.text(jsonHead({ ...outline.base, totals: moneyTotals(outline.money) }));
  let jobs = 0;
  for await (const window of reportWindows(plan, input.statePath, outline, input.windowJobs)) {
    for (const job of window) {
      tally.add(job);
      csv.add(job);
      json.text(jsonJob(job, jobs === 0));
      if (jobs > 0) scratch.html.writer.text(',');
      scratch.html.writer.text(client.json(job));
      jobs++;
    }
  }
  json.text(jsonEnd(jobs));
  json.flush();
  return { head: tally.head(outline.base, outline.money, outline.members), csv };
}

/** Fills `to` through a ChunkWriter (writes of about 1 MB), the last written at the end. */
function batched(to: FileSink, fill: (writer: ChunkWriter) => void): void {
  const writer = new ChunkWriter((data) => to.write(data));
  fill(writer);
  writer.flush();
}

/** The outputs folder as a relative address from `folder`, ending in `/` (`../`, `./`, `../../out/demo/`). */
export function hrefTo(folder: string, outputsDir: string): string {
  const rel = relative(folder, resolve(outputsDir)).split(sep).map(encodeURIComponent).join('/');
  return rel === '' ? './' : `${rel}/`;
}
