import { UsageError } from '../errors.js';
import { stateAt, type CreditPair, type MemberRow, type RunWork } from '../state/index.js';

/** The run a report is about: when it ran, how it ended, and which jobs it changed. */
export interface RunInfo {
  id: number;
  startedAt: number;
  finishedAt: number | null;
  /** `OK`, or the code of the error it ended with (BUDGET_EXCEEDED, INTERRUPTED, …); null while running. */
  outcome: string | null;
  maxCredits: number | null;
  /** The host it ran on (a run several hosts shared: the one whose row heads it). */
  host: string;
  /**
   * What the remote jobs this run sent were charged, whenever they settled (state/sqlite/money.ts): the
   * figure `reelpipe runs` gives it, and the runs of a manifest sum to what it was charged.
   */
  credits: { used: number; unknown: number };
  jobKeys: Set<string>;
}

/**
 * The run `runId` of `manifest` (default: its newest that started — a refused start moved no job,
 * and one refused before its state was opened kept no log), or null when it has none. A run id
 * the manifest does not have is a usage error naming the ones it has. `charged`: what each run was
 * charged, when the caller summed the manifest's charges already (the report's facts did): its
 * figure is taken from there, not summed again (~0.14 s at 100,000 jobs).
 */
export async function readRun(dbPath: string, manifest: string, runId?: number, charged?: ReadonlyMap<number, CreditPair>): Promise<RunInfo | null> {
  const read = await stateAt(dbPath).run(manifest, runId, charged === undefined);
  if (read === undefined && runId !== undefined) throw new UsageError(`--run ${runId}: no state database at ${dbPath}, so no runs`);
  if (!read) return null;
  if ('missing' in read) throw new UsageError(`--run ${runId}: no such run of ${manifest}; its runs are ${read.ids.length ? read.ids.join(', ') : 'none yet'} (newest first)`);
  const credits = charged === undefined ? read.charged : charged.get(read.run.id);
  return { ...read.run, credits: { used: credits?.known ?? 0, unknown: credits?.unknown ?? 0 }, jobKeys: read.jobKeys };
}

/**
 * A run several hosts shared, as one (`run` being one of its `members`' rows): its id is the run's
 * (its first member's), it started when its first member did, its credits are every member's
 * requests' and its jobs every job a member changed; how it ended is `run`'s — the member that
 * ends the run writes the report, and a member that died has no end of its own. `run` as it is
 * when it is not one of `members` or was the run's only member.
 */
export async function wholeRun(dbPath: string, manifest: string, run: RunInfo, members: readonly MemberRow[], charged?: ReadonlyMap<number, CreditPair>): Promise<RunInfo> {
  if (members.length < 2 || !members.some((m) => m.runId === run.id)) return run;
  const others = await Promise.all(members.filter((m) => m.runId !== run.id).map((m) => readRun(dbPath, manifest, m.runId, charged)));
  const all = [run, ...others.filter((other) => other !== null)];
  return {
    ...run,
    id: members[0]?.run ?? run.id,
    startedAt: Math.min(...all.map((r) => r.startedAt)),
    credits: { used: all.reduce((sum, r) => sum + r.credits.used, 0), unknown: all.reduce((sum, r) => sum + r.credits.unknown, 0) },
    jobKeys: new Set(all.flatMap((r) => [...r.jobKeys])),
  };
}

/** The manifest's newest run and its newest run that changed a job (state/sqlite/run-work.ts), for the report's header. */
export interface LastWork {
  newest: RunWork | null;
  worked: RunWork | null;
}

/**
 * Which run last did work (changed a job) of `manifest`, and whether its newest run did nothing. Reads only.
 * `newest`: the manifest's newest run that started, as readRun read it by default. When it changed a
 * job it is both answers, from the jobs that read named: the state is not asked to count them again
 * (a second pass over every event of a run, ~0.3 s at 100,000 jobs).
 */
export async function readLastWork(dbPath: string, manifest: string, newest?: RunInfo | null): Promise<LastWork> {
  if (newest && newest.jobKeys.size > 0) {
    const work: RunWork = { id: newest.id, startedAt: newest.startedAt, finishedAt: newest.finishedAt, outcome: newest.outcome, jobs: newest.jobKeys.size };
    return { newest: work, worked: work };
  }
  return stateAt(dbPath).lastWork(manifest);
}
