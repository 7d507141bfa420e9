import { scopedJobs } from '../plan/job-index.js';
import type { Plan, PlannedJob } from '../plan/types.js';
import { slotOf, stateAt, type StateFacts } from '../state/index.js';
import { recordedFacts, unrecordedFacts, type FactsFound } from './job-facts.js';
import { reportJobOf, type ReportJob } from './report-data.js';
import type { ReportOutline } from './report-outline.js';

/**
 * Jobs of the plan read from the state, shown and let go together. Why 1,000: a window's read
 * costs a few statements whatever its size (a connection's round trips on PostgreSQL), and its
 * jobs, facts and lines are a few MB, twice over (the next window is read while one is shown); at
 * 100,000 jobs that is 100 reads. `reelpipe report` of a 100,000-job state peaked at 131–132 MB
 * with 1,000 against 141–142 MB with 2,000, in 9.1–12.7 s against 9.4–13.4 s (the machine's
 * spread); 500 saved 5 MB more and took 12.4–12.7 s.
 * @default 1000
 */
export const WINDOW_JOBS = 1000;

/** A window of the plan's jobs and its read under way: `first`, the place of its first job. */
interface Window {
  jobs: PlannedJob[];
  first: number;
  read: Promise<StateFacts | undefined>;
}

/**
 * The plan's jobs as the report shows them, a window at a time, in plan order: the jobs of one
 * pass over the plan (a streamed plan makes each job again at every pass), each window's facts
 * read from the state for its keys alone (and those of its jobs' earlier versions). The next
 * window's read is under way while a window is shown: a PostgreSQL state answers meanwhile.
 */
export async function* reportWindows(plan: Plan, statePath: string, outline: ReportOutline, size = WINDOW_JOBS): AsyncGenerator<ReportJob[]> {
  const reader = stateAt(statePath);
  const planJobs = scopedJobs(plan);
  const reading = (jobs: PlannedJob[], first: number): Window => {
    const keys = jobs.flatMap((job) => [job.key, ...(outline.earlier.get(job.key) ?? [])]);
    const read = reader.facts(plan.manifestId, planJobs, { rows: true, money: false, part: { keys } });
    // Awaited when the window is shown; handled now, for a report that stops before then (its failure is told).
    read.catch(() => undefined);
    return { jobs, first, read };
  };
  let [jobs, next, under] = [[] as PlannedJob[], 0, undefined as Window | undefined];
  try {
    for (const job of plan.jobs) {
      jobs.push(job);
      if (jobs.length < size) continue;
      const window = reading(jobs, next);
      [jobs, next] = [[], next + window.jobs.length];
      if (under) yield await shown(under, outline);
      under = window;
    }
    if (under) yield await shown(under, outline);
    if (jobs.length > 0) yield await shown(reading(jobs, next), outline);
  } finally {
    // A read still under way (the report stopped early) ends before its connection does.
    await under?.read.catch(() => undefined);
    await reader.release();
  }
}

/** A window's jobs as shown, from what its read found (undefined: there is no state). */
async function shown(window: Window, outline: ReportOutline): Promise<ReportJob[]> {
  const read = await window.read;
  const found: FactsFound | undefined = read && { ...read, rows: read.rows ?? new Map(), byJob: costs(window, outline) };
  return window.jobs.map((job, i) => {
    const facts = (found && recordedFacts(job.key, found, outline.earlier.get(job.key))) ?? unrecordedFacts(outline.slots?.has(slotOf(job.step, job.outputName)) ?? false);
    return reportJobOf(job, facts, {
      hooks: read?.hooks?.get(job.key) ?? [],
      inRun: outline.inRun(window.first + i),
      host: outline.hostOfRun.get(facts.attempts.at(-1)?.runId ?? -1) ?? null,
    });
  });
}

/** What the window's jobs and their earlier versions cost, by key, from the outline. */
function costs(window: Window, outline: ReportOutline): Map<string, number | null> {
  const byJob = new Map(window.jobs.map((job, i) => [job.key, outline.used(window.first + i)]));
  for (const job of window.jobs) for (const key of outline.earlier.get(job.key) ?? []) byJob.set(key, outline.usedBefore.get(key) ?? 0);
  return byJob;
}
