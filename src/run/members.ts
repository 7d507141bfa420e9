import { SETTLED, type HeldLock, type JobStatus, type RunMembers, type Store } from '../state/index.js';
import type { Clock } from '../util/clock.js';
import type { JobOutcome } from './drive-job.js';

/**
 * A run several processes (hosts) share, as one member sees it (on PostgreSQL; the store's side is
 * state/postgres/pg-members.ts). Each member claims ready jobs in windows (Store.claim: disjoint
 * between members, a lapsed member's jobs taken over), drives them, and claims again. When it has
 * nothing left to claim it is idle; it stays, claiming again now and then, while another member is
 * busy — a busy member may still die, and its jobs are then this one's to take over. Once no other
 * member is busy it leaves; the last to leave ends the run (report, on_finish, notify), once.
 *
 *   busy ──claims run dry, its jobs ended──▶ idle ──another busy: wait, claim again──▶ busy
 *                                            idle ──none busy──▶ leave ──last?──▶ ends the run
 */
export class Members {
  constructor(
    private readonly store: Store & { members: RunMembers },
    private readonly lock: Pick<HeldLock, 'name' | 'token' | 'leave' | 'joined'>,
    private readonly clock: Clock,
    /** How often an idle member looks again, and a job waits for one another member drives. */
    readonly pollMs: number,
    private readonly signal: AbortSignal,
  ) {}

  /** The member side of a run on a shared store, or null (one process runs the manifest). */
  static of(store: Store, lock: Pick<HeldLock, 'name' | 'token' | 'leave' | 'joined'> | undefined, clock: Clock, leaseMs: number, signal: AbortSignal): Members | null {
    if (store.members === null || lock === undefined) return null;
    return new Members(store as Store & { members: RunMembers }, lock, clock, Math.max(50, Math.min(1000, leaseMs / 4)), signal);
  }

  /** This process joined a run another member started (it did not take the manifest's lock). */
  get joined(): boolean {
    return this.lock.joined !== null;
  }

  /** Jobs another member holds: neither driven nor recovered here. */
  heldByOthers(): Promise<Set<string>> {
    return this.store.members.heldByOthers();
  }

  idle(idle: boolean): Promise<boolean> {
    return this.store.members.idle(this.lock.name, this.lock.token, idle);
  }

  /** The hosts of the other members still busy. */
  busy(): Promise<string[]> {
    return this.store.members.busy(this.lock.token);
  }

  /** Leaves the run: true when this member is the last, and ends it. */
  leave(): Promise<boolean> {
    return this.lock.leave();
  }

  /** Waits one poll; false when the run is stopping. */
  pause(): Promise<boolean> {
    return this.clock.sleep(this.pollMs, this.signal).then(() => true, () => false);
  }

  /**
   * How a job this member does not drive ended, for the jobs here that need it: read until it is
   * settled; 'unfinished' once no other member is busy and it is not settled (nobody will drive it
   * in this run), or the run stops.
   */
  settled(key: string): Promise<JobOutcome> {
    // One watch per job, whichever jobs here need it: many dependents of one job read it once a poll.
    let watch = this.watches.get(key);
    if (watch === undefined) {
      watch = this.watch(key).finally(() => this.watches.delete(key));
      this.watches.set(key, watch);
    }
    return watch;
  }

  private readonly watches = new Map<string, Promise<JobOutcome>>();

  private async watch(key: string): Promise<JobOutcome> {
    for (;;) {
      const [row] = await this.store.jobs([key]);
      const outcome = row ? outcomeOf(row.status) : 'unfinished';
      if (outcome !== undefined) return outcome;
      if ((await this.busy()).length === 0 && !(await this.heldByOthers()).has(key)) return 'unfinished';
      if (!(await this.pause())) return 'unfinished';
    }
  }
}

/** A settled job's outcome for the jobs that need it; undefined while it may still move in this run. */
function outcomeOf(status: JobStatus): JobOutcome | undefined {
  if (!SETTLED.includes(status)) return undefined;
  return status === 'downloaded' ? 'ok' : 'failed';
}
