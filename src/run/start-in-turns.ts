/**
 * Starts one job. It calls `leftWaiting` once it no longer waits for a slot: it entered one, or
 * it waits for something else (the jobs it needs, a download slot). Its promise settles when it ends.
 */
export type StartJob<T> = (job: T, leftWaiting: () => void) => Promise<unknown>;

interface Lane<T> {
  jobs: (T | undefined)[];
  next: number;
  waiting: number;
  width: number;
  filling: boolean;
}

/**
 * Starts `jobs` in their order, a few at a time per lane: at most `widthOf(lane)` of a lane's jobs
 * are started and still waiting for a slot; the next one starts when one of them leaves that wait
 * (`leftWaiting`) or ends. The first jobs of every lane start in the jobs' order, so the first
 * wave goes out in plan order. Resolves when every job has ended; a job's rejection is its own
 * (the caller records outcomes), never this promise's.
 *
 * Why not start every job at once: each started job holds its waiting calls (promises, closures,
 * suspended async frames), about 2.4 kB a job. A 20,000-job run's heap held 102 MB 12 s in, and
 * 53 MB started in turns; what waits for a slot is now bounded by the lanes' widths.
 *
 * Why it cannot stall: a job that waits for anything but a slot has left its place, so places
 * are only held by jobs queued for slots; slots are freed by jobs already in them, which need no
 * job started to end. So a lane's queue always moves, and its next job starts.
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
    if (!lane) lanes.set(id, (lane = { jobs: [], next: 0, waiting: 0, width: Math.max(1, widthOf(id)), filling: false }));
    lane.jobs.push(job);
    laneOfJob.push(lane);
  }
  let unsettled = jobs.length;
  return new Promise<void>((allEnded) => {
    if (unsettled === 0) return allEnded();
    const startNext = (lane: Lane<T>) => {
      const job = lane.jobs[lane.next] as T;
      // Dropped once started: the lane never holds a job it has handed on.
      lane.jobs[lane.next++] = undefined;
      lane.waiting++;
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        lane.waiting--;
        fill(lane);
      };
      let started: Promise<unknown>;
      try {
        started = start(job, leave);
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
    const hasRoom = (lane: Lane<T>) => lane.waiting < lane.width && lane.next < lane.jobs.length;
    // A job that leaves its wait as it starts (it waits for the jobs it needs) calls fill again
    // from inside startNext: the loop already running picks the place up, with no recursion.
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
