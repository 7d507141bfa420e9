import type { ReportData, ReportHead, ReportJob } from './report-data.js';
import { utcIsoOrNull as iso } from '../util/time-format.js';
import { knownOrNull } from './credits.js';

/**
 * results.json: the manifest's figures, printed with a gap of two spaces, then `"jobs"`, one
 * entry per job from the input row it was made from to what became of it — each job compact on a
 * line of its own, written a job at a time: a 100,000-job file is never one string.
 *
 * Why a job a line, not indented: the jobs are all but the whole file, and printed with a gap V8
 * takes its slow path (or our own printer did its work): at 100,000 jobs the file was 113 MB and
 * 0.85 s to print; compact it is 71 MB and 0.45 s. A line a job also lets `grep` find a job whole,
 * and `jq` reads it as before.
 */

/** results.json whole (for tests and small reports); writing goes through the chunks. */
export function resultsJson(data: ReportData): string {
  return [...resultsJsonChunks(data)].join('');
}

/** results.json a job at a time: the head's fields, then `"jobs": [` and each job on its own line. */
export function* resultsJsonChunks(data: ReportData): Generator<string> {
  yield jsonHead(data);
  for (const [i, job] of data.jobs.entries()) yield jsonJob(job, i === 0);
  yield jsonEnd(data.jobs.length);
}

/** What the head of results.json says: the manifest, its run and its money (known before any job is read). */
export type JsonHead = Pick<ReportHead, 'name' | 'manifest' | 'outputsDir' | 'generatedAt' | 'run'> & { totals: Pick<ReportHead['totals'], 'used' | 'apart' | 'refunded'> };

/** The head's fields, indented, then `"jobs": [`. */
export function jsonHead(head: JsonHead): string {
  const { used, apart, refunded } = head.totals;
  // The manifest's spend, every remote job it ever made (its jobs' figures below sum to part of it).
  const credits = { used: knownOrNull({ ...used }), unknownUsed: used.unknownJobs, apart, refunded };
  const shown = { name: head.name, manifest: head.manifest, outputsDir: head.outputsDir, generatedAt: iso(head.generatedAt), run: head.run, credits };
  // Never empty (name is always there), so it ends in "\n}": the jobs go before that brace.
  return `${JSON.stringify(shown, null, 2).slice(0, -2)},\n  "jobs": [`;
}

/** A job on a line of its own (after a comma but for the first). */
export const jsonJob = (job: ReportJob, first: boolean): string => `${first ? '\n    ' : ',\n    '}${JSON.stringify(jobEntry(job))}`;

/** The end of the file, after `jobs` jobs. */
export const jsonEnd = (jobs: number): string => (jobs === 0 ? ']\n}\n' : '\n  ]\n}\n');

/** One job as results.json prints it, its fields in this order. Lists most jobs have none of are not mapped (one shared empty list). */
function jobEntry(j: ReportJob) {
  const e = j.estimate;
  return {
    label: j.label, key: j.key, step: j.step, kind: j.kind, origin: j.origin, row: j.row, matrix: j.matrix,
    state: j.state, dbStatus: j.status, remoteId: j.remoteId, host: j.host,
    credits: { estimated: e?.expected ?? null, low: e?.low ?? null, high: e?.high ?? null, used: j.used, overHighEstimate: j.overHigh },
    outputs: j.outputs.map((o) => o.path),
    reason: j.reason,
    items: j.items.length === 0 ? NONE : j.items.map((i) => ({ item: i.item, state: i.state, reason: i.reason, refunded: i.refunded, refundDerived: i.refundDerived, output: i.path })),
    history: j.history.length === 0 ? NONE : j.history.map((v) => ({ key: v.key, creditsUsed: v.used, outputs: v.outputs.map((o) => o.path) })),
    hooks: j.hooks.length === 0 ? NONE : j.hooks.map((h) => ({ output: h.outputIdx, state: h.state, exitCode: h.exitCode, signal: h.signal, timedOut: h.timedOut, durationMs: h.durationMs, error: h.error })),
    // An AttemptFact's fields, in its order, its time as text.
    attempts: j.attempts.map((a) => ({ at: iso(a.at), runId: a.runId, remoteId: a.remoteId, ended: a.ended, reason: a.reason, credits: a.credits, retriedInRun: a.retriedInRun })),
    submittedAt: iso(j.submittedAt), finishedAt: iso(j.finishedAt), downloadedAt: iso(j.downloadedAt),
  };
}

const NONE: readonly never[] = Object.freeze([]);
