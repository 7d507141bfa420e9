import { scopedJobs } from '../plan/job-index.js';
import type { PlanIndex } from '../plan/plan-index.js';
import type { Plan, StepPlan } from '../plan/types.js';
import type { JobRow } from '../state/index.js';
import { adapterFor } from './adapters/index.js';
import { isRefusedDownload } from './outputs/refused-download.js';

/**
 * Where every job of a plan stands at the end of a run, read from the state database alone —
 * never from what the run remembers — so the exit code and the summary tell the truth even when
 * the run's own bookkeeping went wrong. Each job is in exactly one group:
 *
 *   finished    downloaded: made, paid, on disk (counted, never named)
 *   failed      failed at the service, with its reason (reelpipe retry resubmits)
 *   rejected    refused by the service: nothing made, nothing charged (fix the input, then retry)
 *   hookFailed  hook_failed: made, paid, on disk, but its on_output hook failed (retry --hooks)
 *   partlyFailed partly_failed: its made items on disk, some items failed (retry asks for those)
 *   refused     done, but its files were refused (too large, a private address, a link in the
 *               outputs folder): made and paid for; the run after a person's fix fetches them
 *   blocked     planned, but a job it needs failed (or is itself blocked): retry that one first
 *   waitingOnDoubt
 *               planned behind an undecided job (below), directly or through other jobs waiting
 *               on one: no run starts it until a person settles that job (doubt, then resolve)
 *   open        running the same command again can move it on:
 *                 rendering    submitting, submitted, running: the service is still on it
 *                 toDownload   done: finished remotely, its files not all on disk yet
 *                 notSubmitted planned and free to go (stopped, deferred, or never reached)
 *                 toSearch     in doubt, of a kind the next run can search for (or whose id was kept)
 *   undecided   in doubt, of a kind nobody can search: only a person can say whether it exists
 */
export interface Standing {
  /** How many: the jobs finished cleanly are never named, and a list of them held every key of a night through its report. */
  finished: number;
  failed: string[];
  rejected: string[];
  hookFailed: string[];
  partlyFailed: string[];
  refused: string[];
  blocked: string[];
  /** Each with the undecided jobs it waits on, in plan order. */
  waitingOnDoubt: { key: string; on: readonly string[] }[];
  open: { rendering: string[]; toDownload: string[]; notSubmitted: string[]; toSearch: string[] };
  undecided: string[];
}

export function openCount(standing: Standing): number {
  const { rendering, toDownload, notSubmitted, toSearch } = standing.open;
  return rendering.length + toDownload.length + notSubmitted.length + toSearch.length;
}

/** What a job's standing is read from: its row by key (undefined: no row, so planned). A Map of the rows serves. */
export interface StandingRows {
  get(key: string): Pick<JobRow, 'key' | 'status' | 'remoteId' | 'failedReason'> | undefined;
}

/** `needs`: what each job waits for before it may be submitted (see dependencies.ts). */
export function standingOf(plan: Pick<Plan, 'jobs' | 'steps'> & { index?: PlanIndex }, byKey: StandingRows, needs: Map<string, readonly string[]>): Standing {
  const stepOf = new Map(plan.steps.map((step) => [step.id, step]));
  const standing: Standing = { finished: 0, failed: [], rejected: [], hookFailed: [], partlyFailed: [], refused: [], blocked: [], waitingOnDoubt: [], open: { rendering: [], toDownload: [], notSubmitted: [], toSearch: [] }, undecided: [] };
  const stuck = new Set<string>();
  /** The undecided jobs each undecided or waiting job stands for: itself, or those it waits on. */
  const doubts = new Map<string, readonly string[]>();
  // Plan order puts every job after the jobs it needs, so "blocked" and "waiting" propagate in one
  // pass — over the plan's keys and steps (a streamed plan's index: no job made).
  for (const { key: jobKey, step: stepId } of scopedJobs(plan)) {
    const { kind, mode } = stepOf.get(stepId) as StepPlan;
    const job = { key: jobKey, kind, mode };
    const row = byKey.get(job.key);
    const status = row?.status ?? 'planned';
    if (status === 'downloaded') standing.finished++;
    // Its result is there for the jobs that need it: a failed hook blocks nothing.
    else if (status === 'hook_failed') standing.hookFailed.push(job.key);
    // Its made items are there for the jobs that need it, as a failed hook's files are.
    else if (status === 'partly_failed') standing.partlyFailed.push(job.key);
    else if (status === 'failed' || status === 'rejected') {
      standing[status].push(job.key);
      stuck.add(job.key);
    } else if (status === 'planned') {
      const upstream = needs.get(job.key) ?? [];
      // A failure needs a retry whatever else the job waits on: blocked comes first.
      const blocked = upstream.some((key) => stuck.has(key));
      const on = blocked ? [] : doubtsOf(upstream, doubts);
      if (blocked) {
        stuck.add(job.key);
        standing.blocked.push(job.key);
      } else if (on.length > 0) {
        doubts.set(job.key, on);
        standing.waitingOnDoubt.push({ key: job.key, on });
      } else standing.open.notSubmitted.push(job.key);
    } else if (status === 'done') (isRefusedDownload(row?.failedReason) ? standing.refused : standing.open.toDownload).push(job.key);
    else if (status === 'in_doubt' && searchable(job.kind, job.mode, row)) standing.open.toSearch.push(job.key);
    else if (status === 'in_doubt') {
      standing.undecided.push(job.key);
      doubts.set(job.key, [job.key]);
    } else standing.open.rendering.push(job.key);
  }
  return standing;
}

/**
 * The undecided jobs behind `upstream`, each once. Why a job waiting on one is not open: the run
 * never submits it before that job is settled, and only a person settles it, so running again
 * changes nothing (cron saw exit 4 and ran again every night, in 0.1 s). A job needed by many
 * shares its list with them (a step waiting on a step holds one list, not one per job).
 */
function doubtsOf(upstream: readonly string[], doubts: ReadonlyMap<string, readonly string[]>): readonly string[] {
  if (doubts.size === 0) return [];
  let first: readonly string[] | undefined;
  const all = new Set<string>();
  for (const key of upstream) {
    const on = doubts.get(key);
    if (!on) continue;
    first ??= on;
    for (const doubt of on) all.add(doubt);
  }
  return first && all.size === first.length ? first : [...all];
}

/**
 * Whether a later run can settle this in-doubt job by itself: its answer's id was kept, or its
 * kind can be searched (lipsync, ad clones) or safely resent (link updates, deletions). Others
 * (AI Shorts, HTML ads, Boreal…) cannot be found without an id: a person decides.
 */
function searchable(kind: JobRow['kind'], mode: Parameters<typeof adapterFor>[1], row: Pick<JobRow, 'remoteId'> | undefined): boolean {
  if (row?.remoteId) return true;
  const adapter = adapterFor(kind, mode);
  return adapter.reconcile !== 'none' && (adapter.reconcile === 'resend' || adapter.listRecent !== undefined);
}
