import { compareReady, type ReadyRank } from './ready-order.js';

/** What a started job tells its lane. */
export interface Turn {
  /** It no longer waits for a slot: it entered one, or waits for something else. Once per turn. */
  leave(): void;
  /**
   * It waited for something else (the jobs it needs) and now wants a slot again: resolves when its
   * lane gives it a place, behind every job of its priority (or higher) not started yet, as the
   * slot queue would have put it had every job been queued at once — and ahead of the lower ones.
   */
  rejoin(): Promise<void>;
}

/** Starts one job; its promise settles when the job ends. */
export type StartJob<T> = (job: T, turn: Turn) => Promise<unknown>;

/** A lane's queue holds jobs to start and started jobs coming back for a place, each ranked (ready-order.ts). */
type Entry<T> = ({ job: T } | { back: () => void }) & ReadyRank;

/** The entries of one priority, in the order they came: each bucket is in ready order by itself. */
interface Bucket<T> {
  entries: (Entry<T> | undefined)[];
  next: number;
}

interface Lane<T> {
  buckets: Map<number, Bucket<T>>;
  /** Entries queued and not handed on yet. */
  queued: number;
  waiting: number;
  width: number;
  filling: boolean;
}

function enqueue<T>(lane: Lane<T>, entry: Entry<T>): void {
  let bucket = lane.buckets.get(entry.priority);
  if (!bucket) lane.buckets.set(entry.priority, (bucket = { entries: [], next: 0 }));
  bucket.entries.push(entry);
  lane.queued++;
}

/** The entry that goes first in ready order: the first of the bucket heads (a lane has a few priorities at most). */
function dequeue<T>(lane: Lane<T>): Entry<T> {
  let best: Bucket<T> | undefined;
  for (const bucket of lane.buckets.values()) {
    const head = bucket.entries[bucket.next];
    if (head && (!best || compareReady(head, best.entries[best.next] as Entry<T>) < 0)) best = bucket;
  }
  const chosen = best as Bucket<T>;
  const entry = chosen.entries[chosen.next] as Entry<T>;
  // Dropped once handed on: the lane never holds a job it has started.
  chosen.entries[chosen.next++] = undefined;
  if (chosen.next === chosen.entries.length) chosen.entries.length = chosen.next = 0;
  lane.queued--;
  return entry;
}

/** Jobs handed to startInTurns as it goes (claims window by window): asked for while few wait. */
export interface MoreJobs<T> {
  /** The next jobs, in ready order after every job given so far; empty once there are none. */
  next: () => Promise<readonly T[]>;
  /** Asked for once fewer than this many jobs wait to be started, across the lanes. */
  lowWater: number;
}

/** Comebacks rank behind every job given, however many are given later (see rejoin). */
const COMEBACK_BASE = 2 ** 50;

/**
 * Starts `jobs` a few at a time per lane, in ready order (ready-order.ts: `priorityOf` descending,
 * then the order given): at most `widthOf(lane)` of a lane's jobs are started and waiting for a
 * slot; the next one starts when one of them leaves that wait or ends. With every priority equal
 * the first jobs of every lane start in the jobs' order, so the first wave goes out in the order
 * given. Resolves when every job has ended; a job's rejection is its own (the caller records
 * outcomes), never this promise's.
 *
 * Why not start every job at once: each started job holds its waiting calls (promises, closures,
 * suspended async frames), about 2.4 kB a job. A 20,000-job run's heap held 102 MB 12 s in, and
 * 53 MB started in turns; what waits for a slot is now bounded by the lanes' widths.
 *
 * Why it cannot stall: a job that waits for anything but a slot has left its place, and comes
 * back (rejoin) only once that wait is over; so places are held only by jobs queued for slots,
 * and slots are freed by jobs already in them, which need no job started to end.
 *
 * With `more`, the jobs keep coming (the store's claims, window by window): more are asked for
 * whenever fewer than `more.lowWater` wait to be started, and the promise resolves once `more`
 * has none left and every job given has ended. If asking fails, no more are asked for, and the
 * promise rejects with that failure once every job started has ended.
 */
export function startInTurns<T>(
  jobs: readonly T[],
  laneOf: (job: T) => string,
  widthOf: (lane: string) => number,
  start: StartJob<T>,
  priorityOf: (job: T) => number = () => 0,
  more?: MoreJobs<T>,
): Promise<void> {
  const lanes = new Map<string, Lane<T>>();
  let nextOrder = 0;
  let unsettled = 0;
  /** Queues `batch` in its lanes (in order); returns the lane of each, in the batch's order. */
  const add = (batch: readonly T[]): Lane<T>[] =>
    batch.map((job) => {
      const id = laneOf(job);
      let lane = lanes.get(id);
      if (!lane) lanes.set(id, (lane = { buckets: new Map(), queued: 0, waiting: 0, width: Math.max(1, widthOf(id)), filling: false }));
      enqueue(lane, { job, priority: priorityOf(job), order: nextOrder++ });
      unsettled++;
      return lane;
    });
  const laneOfJob = add(jobs);
  // A job coming back ranks behind every job given (and every earlier comer) of its priority.
  let comebacks = COMEBACK_BASE;
  let fetching = false;
  let exhausted = !more;
  let failure: { error: unknown } | undefined;
  return new Promise<void>((allEnded, failed) => {
    const settleIfDone = () => {
      if (unsettled > 0 || !exhausted || fetching) return;
      if (failure) failed(failure.error);
      else allEnded();
    };
    /** A place in `lane`, given up by calling the result (once). */
    const place = (lane: Lane<T>) => {
      lane.waiting++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        lane.waiting--;
        fill(lane);
      };
    };
    const startNext = (lane: Lane<T>) => {
      const entry = dequeue(lane);
      if ('back' in entry) return entry.back();
      const { job } = entry;
      let leave = place(lane);
      const turn: Turn = {
        leave: () => leave(),
        rejoin: () => {
          leave();
          return new Promise<void>((given) => {
            enqueue(lane, { back: () => ((leave = place(lane)), given()), priority: priorityOf(job), order: comebacks++ });
            fill(lane);
          });
        },
      };
      let started: Promise<unknown>;
      try {
        started = start(job, turn);
      } catch (error) {
        started = Promise.reject(error);
      }
      started
        .catch(() => undefined)
        .then(() => {
          leave();
          unsettled--;
          refill();
          settleIfDone();
        });
    };
    const hasRoom = (lane: Lane<T>) => lane.waiting < lane.width && lane.queued > 0;
    // A job that leaves its wait as it starts calls fill again from inside startNext: the loop
    // already running picks the place up, with no recursion.
    const fill = (lane: Lane<T>) => {
      if (lane.filling) return;
      lane.filling = true;
      while (hasRoom(lane)) startNext(lane);
      lane.filling = false;
      refill();
    };
    /** Asks for more jobs once few wait to be started; a failure to get them ends the promise once every job started has ended. */
    const refill = () => {
      if (!more || exhausted || fetching) return;
      let queued = 0;
      for (const lane of lanes.values()) queued += lane.queued;
      if (queued >= more.lowWater) return;
      fetching = true;
      more.next().then(
        (batch) => {
          fetching = false;
          if (batch.length === 0) exhausted = true;
          for (const lane of new Set(add(batch))) fill(lane);
          refill();
          settleIfDone();
        },
        (error: unknown) => {
          fetching = false;
          exhausted = true;
          failure = { error };
          settleIfDone();
        },
      );
    };
    for (const lane of lanes.values()) lane.filling = true;
    laneOfJob.forEach((lane) => {
      if (hasRoom(lane)) startNext(lane);
    });
    for (const lane of lanes.values()) {
      lane.filling = false;
      fill(lane);
    }
    refill();
    settleIfDone();
  });
}
