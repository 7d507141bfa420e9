import { describe, expect, test } from 'vitest';
import { startInTurns, type Turn } from '../../src/run/start-in-turns.js';

/** A job the test moves by hand: it leaves its wait, then ends, when told to. */
interface Held {
  name: string;
  lane: string;
  priority: number;
  turn?: Turn;
  leave?: () => void;
  end: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void };
}

function held(name: string, lane = 'a', priority = 0): Held {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
  return { name, lane, priority, end: { promise, resolve, reject } };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

function run(jobs: Held[], width: (lane: string) => number) {
  const started: string[] = [];
  const all = startInTurns(jobs, (job) => job.lane, width, (job, turn) => {
    started.push(job.name);
    job.turn = turn;
    job.leave = () => turn.leave();
    return job.end.promise;
  }, (job) => job.priority);
  let ended = false;
  void all.then(() => (ended = true));
  return { started, ended: () => ended };
}

describe('starting jobs in turns', () => {
  test('at most the lane width of jobs wait at once; the next starts when one leaves its wait', async () => {
    const jobs = ['j1', 'j2', 'j3', 'j4', 'j5'].map((name) => held(name));
    const { started } = run(jobs, () => 2);
    expect(started).toEqual(['j1', 'j2']);
    jobs[0]!.leave!();
    expect(started).toEqual(['j1', 'j2', 'j3']);
    // Leaving twice frees one place, not two.
    jobs[0]!.leave!();
    expect(started).toEqual(['j1', 'j2', 'j3']);
  });

  test('a job that ends without leaving its wait frees its place too', async () => {
    const jobs = ['j1', 'j2', 'j3'].map((name) => held(name));
    const { started } = run(jobs, () => 1);
    jobs[0]!.end.resolve();
    await settle();
    expect(started).toEqual(['j1', 'j2']);
  });

  test('each lane has its own width, so a full lane never holds back another', () => {
    const jobs = [held('a1', 'a'), held('a2', 'a'), held('a3', 'a'), held('b1', 'b'), held('b2', 'b')];
    const { started } = run(jobs, (lane) => (lane === 'a' ? 1 : 2));
    expect(started).toEqual(['a1', 'b1', 'b2']);
  });

  test('the first jobs of every lane start in the order given (the first wave goes out in plan order)', () => {
    const jobs = [held('a1', 'a'), held('b1', 'b'), held('a2', 'a'), held('b2', 'b'), held('a3', 'a')];
    const { started } = run(jobs, () => 2);
    expect(started).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  test('a job that leaves its wait as it starts (it waits for other jobs) lets the next start at once, without recursion', async () => {
    const count = 20_000;
    const started: number[] = [];
    const ends: (() => void)[] = [];
    let leftWithoutError = 0;
    const all = startInTurns(Array.from({ length: count }, (_, i) => i), () => 'a', () => 1, (i, turn) => {
      started.push(i);
      turn.leave();
      // Reached only if leaving (and the start of the next job it causes) returned normally:
      // a recursive start would overflow the stack here.
      leftWithoutError++;
      return new Promise<void>((resolve) => ends.push(resolve));
    });
    expect(started).toHaveLength(count);
    expect(leftWithoutError).toBe(count);
    for (const end of ends) end();
    await expect(all).resolves.toBeUndefined();
  });

  test('a job coming back for a place (it waited for the jobs it needs) queues behind every job not started yet', async () => {
    const jobs = ['j1', 'j2', 'j3', 'j4'].map((name) => held(name));
    const { started } = run(jobs, () => 1);
    expect(started).toEqual(['j1']);
    // j1 waits for other jobs: its place goes to j2; when it comes back, j3 and j4 are ahead of it.
    let given = false;
    void jobs[0]!.turn!.rejoin().then(() => (given = true));
    expect(started).toEqual(['j1', 'j2']);
    jobs[1]!.leave!();
    expect(started).toEqual(['j1', 'j2', 'j3']);
    jobs[2]!.leave!();
    jobs[3]!.leave!();
    await settle();
    expect(started).toEqual(['j1', 'j2', 'j3', 'j4']);
    expect(given).toBe(true);
    // Back in its place, j1 holds it until it leaves again: nothing else is waiting to start.
    jobs[0]!.turn!.leave();
  });

  test('a job back in its place holds it: the next one coming back waits for it to leave', async () => {
    const jobs = ['j1', 'j2', 'j3'].map((name) => held(name));
    const { started } = run(jobs, () => 1);
    let firstBack = false;
    let secondBack = false;
    void jobs[0]!.turn!.rejoin().then(() => (firstBack = true));
    void jobs[1]!.turn!.rejoin().then(() => (secondBack = true));
    expect(started).toEqual(['j1', 'j2', 'j3']);
    jobs[2]!.leave!();
    await settle();
    expect([firstBack, secondBack]).toEqual([true, false]);
    jobs[0]!.turn!.leave();
    await settle();
    expect(secondBack).toBe(true);
  });

  test('jobs start by priority, higher first, then in the order given (ready-order.ts)', () => {
    const jobs = [held('low1'), held('mid', 'a', 5), held('low2'), held('high', 'a', 10), held('mid2', 'a', 5)];
    const { started } = run(jobs, () => 3);
    expect(started).toEqual(['high', 'mid', 'mid2']);
    jobs[3]!.leave!();
    jobs[1]!.leave!();
    expect(started).toEqual(['high', 'mid', 'mid2', 'low1', 'low2']);
  });

  test('a job coming back goes ahead of the lower-priority jobs not started yet, behind those of its priority', async () => {
    const jobs = [held('low1'), held('low2'), held('same', 'a', 10), held('high', 'a', 10)];
    const { started } = run(jobs, () => 1);
    expect(started).toEqual(['same']);
    // `same` waits for the jobs it needs: its place goes to `high`, then it comes back.
    let given = false;
    void jobs[2]!.turn!.rejoin().then(() => (given = true));
    expect(started).toEqual(['same', 'high']);
    // `high` leaves: the place goes to `same` coming back, not to the low jobs given before it.
    jobs[3]!.leave!();
    await settle();
    expect(given).toBe(true);
    expect(started).toEqual(['same', 'high']);
    jobs[2]!.turn!.leave();
    expect(started).toEqual(['same', 'high', 'low1']);
  });

  test('resolves once every job has ended, a failed or throwing one included', async () => {
    const jobs = [held('j1'), held('j2'), held('j3')];
    const { started, ended } = run(jobs, () => 3);
    jobs[0]!.end.reject(new Error('job failed'));
    jobs[1]!.end.resolve();
    await settle();
    expect(ended()).toBe(false);
    jobs[2]!.end.resolve();
    await settle();
    expect(ended()).toBe(true);
    expect(started).toEqual(['j1', 'j2', 'j3']);

    let calls = 0;
    await startInTurns(['x', 'y'], () => 'a', () => 1, () => {
      calls++;
      throw new Error('thrown before any await');
    });
    expect(calls).toBe(2);
  });

  test('no jobs: resolves at once', async () => {
    await expect(startInTurns([], () => 'a', () => 1, () => Promise.resolve())).resolves.toBeUndefined();
  });

  describe('jobs that keep coming (the store hands them out window by window)', () => {
    /** Windows of `held` jobs handed out in turn; `asked` counts the asks. */
    function stream(windows: Held[][]) {
      const state = { asked: 0, fail: undefined as Error | undefined };
      const next = async (): Promise<Held[]> => {
        state.asked++;
        if (state.fail) throw state.fail;
        return windows.shift() ?? [];
      };
      return { state, next };
    }

    function runStream(first: Held[], width: number, more: { next: () => Promise<Held[]>; lowWater: number }) {
      const started: string[] = [];
      let outcome: 'running' | 'ended' | Error = 'running';
      const all = startInTurns(first, (job) => job.lane, () => width, (job, turn) => {
        started.push(job.name);
        job.leave = () => turn.leave();
        return job.end.promise;
      }, (job) => job.priority, more);
      all.then(() => (outcome = 'ended'), (error: Error) => (outcome = error));
      return { started, outcome: () => outcome };
    }

    test('more are asked for once few wait, started in the order handed out, and it ends when none are left', async () => {
      const first = [held('j1'), held('j2'), held('j3')];
      const second = [held('k1'), held('k2')];
      const { state, next } = stream([second]);
      const { started, outcome } = runStream(first, 1, { next, lowWater: 2 });
      expect(started).toEqual(['j1']);
      // Two wait to start (j2, j3): not yet below the low water.
      expect(state.asked).toBe(0);
      first[0]!.end.resolve();
      await settle();
      // j2 started, one waits: the next window is asked for and queued behind it.
      expect(state.asked).toBe(1);
      for (const job of [first[1]!, first[2]!, second[0]!]) {
        job.end.resolve();
        await settle();
      }
      expect(started).toEqual(['j1', 'j2', 'j3', 'k1', 'k2']);
      expect(outcome()).toBe('running');
      second[1]!.end.resolve();
      await settle();
      expect(outcome()).toBe('ended');
      // Asked until a window came back empty.
      expect(state.asked).toBe(2);
    });

    test('a comeback ranks behind every job of its priority, those handed out after it came back too', async () => {
      const first = [held('j1'), held('j2')];
      const later = [held('k1')];
      const { next } = stream([later]);
      const started: string[] = [];
      const turns = new Map<string, Turn>();
      void startInTurns(first, () => 'a', () => 1, (job, turn) => {
        started.push(job.name);
        turns.set(job.name, turn);
        return job.end.promise;
      }, () => 0, { next, lowWater: 5 });
      await settle();
      const back = turns.get('j1')!.rejoin();
      await settle();
      expect(started).toEqual(['j1', 'j2']);
      turns.get('j2')!.leave();
      await settle();
      // k1 was handed out after j1 came back, and still goes first.
      expect(started).toEqual(['j1', 'j2', 'k1']);
      turns.get('k1')!.leave();
      await back;
    });

    test('a failure to get more stops asking, and the promise rejects once the jobs started have ended', async () => {
      const first = [held('j1')];
      const { state, next } = stream([]);
      state.fail = new Error('database is locked');
      const { outcome } = runStream(first, 1, { next, lowWater: 5 });
      await settle();
      expect(state.asked).toBe(1);
      expect(outcome()).toBe('running');
      first[0]!.end.resolve();
      await settle();
      expect(outcome()).toEqual(new Error('database is locked'));
      expect(state.asked).toBe(1);
    });
  });
});
