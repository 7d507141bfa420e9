/** What a started job tells its lane. */
export interface Turn {
  /** It no longer waits for a slot: it entered one, or waits for something else. Once per turn. */
  leave(): void;
  /**
   * It waited for something else (the jobs it needs) and now wants a slot again: resolves when its
   * lane gives it a place, behind every job of the lane not started yet, as the slot queue would
   * have put it had every job been queued at once.
   */
  rejoin(): Promise<void>;
}

/** Starts one job; its promise settles when the job ends. */
export type StartJob<T> = (job: T, turn: Turn) => Promise<unknown>;

/** A lane's queue holds jobs to start and, behind them, started jobs coming back for a place. */
type Entry<T> = { job: T } | { back: () => void };

interface Lane<T> {
  queue: (Entry<T> | undefined)[];
  next: number;
  waiting: number;
  width: number;
  filling: boolean;
}

/**
 * Starts `jobs` in their order, a few at a time per lane: at most `widthOf(lane)` of a lane's jobs
 * are started and waiting for a slot; the next one starts when one of them leaves that wait or
 * ends. The first jobs of every lane start in the jobs' order, so the first wave goes out in the
 * order given. Resolves when every job has ended; a job's rejection is its own (the caller records
 * outcomes), never this promise's.
 *
 * Why not start every job at once: each started job holds its waiting calls (promises, closures,
 * suspended async frames), about 2.4 kB a job. A 20,000-job run's heap held 102 MB 12 s in, and
 * 53 MB started in turns; what waits for a slot is now bounded by the lanes' widths.
 *
 * Why it cannot stall: a job that waits for anything but a slot has left its place, and comes
 * back (rejoin) only once that wait is over; so places are held only by jobs queued for slots,
 * and slots are freed by jobs already in them, which need no job started to end.
 */
export function startInTurns<T>(
  jobs: readonly T[],
  laneOf: (job: T) => string,
  widthOf: (lane: string) => number,
  start: StartJob<T>,
): Promise<void> {
  const lanes = new Map<string, Lane<T>>();
  const laneOfJob: Lane<T>[] = [];
  for (const job of jobs) {
    const id = laneOf(job);
    let lane = lanes.get(id);
    if (!lane) lanes.set(id, (lane = { queue: [], next: 0, waiting: 0, width: Math.max(1, widthOf(id)), filling: false }));
    lane.queue.push({ job });
    laneOfJob.push(lane);
  }
  let unsettled = jobs.length;
  return new Promise<void>((allEnded) => {
    if (unsettled === 0) return allEnded();
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
      const entry = lane.queue[lane.next] as Entry<T>;
      // Dropped once handed on: the lane never holds a job it has started.
      lane.queue[lane.next++] = undefined;
      if ('back' in entry) return entry.back();
      let leave = place(lane);
      const turn: Turn = {
        leave: () => leave(),
        rejoin: () => {
          leave();
          return new Promise<void>((given) => {
            lane.queue.push({ back: () => ((leave = place(lane)), given()) });
            fill(lane);
          });
        },
      };
      let started: Promise<unknown>;
      try {
        started = start(entry.job, turn);
      } catch (error) {
        started = Promise.reject(error);
      }
      started
        .catch(() => undefined)
        .then(() => {
          leave();
          if (--unsettled === 0) allEnded();
        });
    };
    const hasRoom = (lane: Lane<T>) => lane.waiting < lane.width && lane.next < lane.queue.length;
    // A job that leaves its wait as it starts calls fill again from inside startNext: the loop
    // already running picks the place up, with no recursion.
    const fill = (lane: Lane<T>) => {
      if (lane.filling) return;
      lane.filling = true;
      while (hasRoom(lane)) startNext(lane);
      lane.filling = false;
    };
    for (const lane of lanes.values()) lane.filling = true;
    laneOfJob.forEach((lane) => {
      if (hasRoom(lane)) startNext(lane);
    });
    for (const lane of lanes.values()) {
      lane.filling = false;
      fill(lane);
    }
  });
}
