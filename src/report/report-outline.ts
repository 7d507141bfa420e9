import { keysOf, scopedJobs } from '../plan/job-index.js';
import { stateAt, type JobCosts, type MemberRow, type MoneyTotals } from '../state/index.js';
import { NO_MONEY } from './job-facts.js';
import type { ReportHead, ReportInput, ReportRun } from './report-data.js';
import { readLastWork, readRun, wholeRun, type RunInfo } from './run-info.js';

/**
 * What the report needs of the whole manifest before it reads its jobs a window at a time
 * (write-report.ts): the head's figures known before any job (the run and which did work last,
 * the newest on_finish hook), the money, the newest run's members, and — for each window — the
 * earlier versions of the plan's jobs, the places a key the state lacks is `changed` in, and
 * whether the run changed each job.
 */
export interface ReportOutline {
  base: Omit<ReportHead, 'steps' | 'totals' | 'hosts' | 'attention'>;
  money: MoneyTotals;
  members: MemberRow[];
  /** The host of each member's run, by run id. */
  hostOfRun: ReadonlyMap<number, string>;
  /** Whether the report's run changed the job at `place` in the plan (0 for the first). */
  inRun(place: number): boolean;
  /** What the job at `place` cost (MoneySums.byJob: null, not known; 0 without a charge). */
  used(place: number): number | null;
  /** What each earlier version cost, by its key. */
  usedBefore: ReadonlyMap<string, number | null>;
  /** The keys of each job's earlier versions, oldest first, by the job's key (only jobs that have some). */
  earlier: ReadonlyMap<string, readonly string[]>;
  /** The places (slotOf) of the rows outside the plan, when a job of the plan has no row; else null. */
  slots: ReadonlySet<string> | null;
}

/** The report's outline (see ReportOutline), read-only. */
export async function readReportOutline({ plan, statePath, runId, now = Date.now(), money: knownMoney }: ReportInput): Promise<ReportOutline> {
  const read = await stateAt(statePath).facts(plan.manifestId, scopedJobs(plan), { rows: false, money: !knownMoney, part: { outline: true } });
  // Without a state there is no money, whatever a caller says it read.
  const money = read ? (read.money ?? knownMoney) : undefined;
  const members = await stateAt(statePath).members(plan.manifestId);
  // A run several hosts shared heads the report as one run: every member's jobs and credits.
  const member = await readRun(statePath, plan.manifestId, runId, money?.runs ?? new Map());
  const run = member && (await wholeRun(statePath, plan.manifestId, member, members, money?.runs ?? new Map()));
  // The run read by default is the newest that started: what the header's last work is told of first.
  const lastWork = await readLastWork(statePath, plan.manifestId, runId === undefined ? member : null);
  return {
    base: {
      name: plan.name, manifest: plan.manifestPath, outputsDir: plan.outputsDir, stateDb: statePath, generatedAt: now,
      run: run && shownRun(run), lastWork, maxCredits: plan.budget.maxCredits, onFinish: read?.lastFinish ?? null,
    },
    money: money?.totals ?? NO_MONEY,
    members,
    hostOfRun: new Map(members.map((m) => [m.runId, m.host])),
    ...byPlace(plan, run?.jobKeys, money?.byJob),
    usedBefore: usedBefore(read?.earlier, money?.byJob),
    earlier: read?.earlier ?? new Map(),
    slots: read?.slots ?? null,
  };
}

function shownRun({ jobKeys: _keys, ...run }: RunInfo): ReportRun {
  return run;
}

/**
 * What the windows need of each job of the plan that the outline read for all of them, by place:
 * whether the run changed it (a bit) and what it cost (8 bytes), not the run's set of keys and the
 * money's map of every job's cost (~100 bytes a job, 100,000 of them for a night's run). One pass
 * over the plan's keys (from its index: no job made).
 */
function byPlace(plan: ReportInput['plan'], runKeys: ReadonlySet<string> | undefined, byJob: JobCosts | undefined) {
  const bits = new Uint8Array(runKeys?.size ? Math.ceil(plan.jobs.length / 8) : 0);
  const costs = new Float64Array(byJob?.size ? plan.jobs.length : 0);
  let place = 0;
  for (const key of runKeys?.size || byJob?.size ? keysOf(plan) : []) {
    if (runKeys?.has(key)) bits[place >> 3] = (bits[place >> 3] as number) | (1 << (place & 7));
    // Not known is NaN; no charge, 0.
    const cost = byJob?.get(key);
    if (cost !== undefined) costs[place] = cost ?? Number.NaN;
    place++;
  }
  return {
    inRun: (at: number) => ((bits[at >> 3] ?? 0) & (1 << (at & 7))) !== 0,
    used: (at: number) => {
      const cost = costs[at] ?? 0;
      return Number.isNaN(cost) ? null : cost;
    },
  };
}

/** What each earlier version cost (a job without a charge, 0). */
function usedBefore(earlier: ReadonlyMap<string, readonly string[]> | undefined, byJob: JobCosts | undefined): Map<string, number | null> {
  const costs = new Map<string, number | null>();
  for (const keys of earlier?.values() ?? []) for (const key of keys) costs.set(key, byJob?.has(key) ? (byJob.get(key) as number | null) : 0);
  return costs;
}
