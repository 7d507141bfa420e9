import type { RunEvents, RunEventMap, RunStarted } from '../run/run-events.js';
import { systemClock, type Clock } from '../util/clock.js';
import { jobIndex, type JobIndex } from '../plan/job-index.js';
import { printable } from '../util/one-line.js';
import { isoTime } from '../util/time-format.js';
import * as say from './progress/lines.js';
import { LiveBlock, type TerminalSize } from './progress/live-block.js';
import { ProgressTally, type JobFacts, type PlanShape } from './progress/tally.js';

export type { ProgressMode } from './progress/mode.js';

/** Plain progress says where the run stands this often. Why 30 s: a cron log stays readable over a night, and a stall shows within a minute. */
export const STATUS_EVERY_MS = 30_000;
/** The live block is redrawn at most this often. Why: a burst of status changes must not flood a slow terminal (or an ssh link). */
export const REDRAW_MIN_MS = 200;
/** The live block is redrawn at least this often, so the elapsed time and ETA move on while nothing happens. */
const LIVE_TICK_MS = 1000;

export interface ProgressOptions {
  /** `live`: a block redrawn in place (a terminal); `plain`: timestamped lines (cron, pipes). See progress/mode.ts. */
  mode: 'live' | 'plain';
  write: (text: string) => void;
  /** reelpipe's version, in the header. */
  version: string;
  /** @default systemClock */
  clock?: Clock;
  /** The terminal's size (live mode). @default 80 × 24 */
  size?: () => TerminalSize;
  /** How often plain progress prints its status line. @default STATUS_EVERY_MS */
  statusEveryMs?: number;
}

/** What progress counts of a job found recorded as the run starts. */
type FoundRow = Pick<JobFacts, 'key' | 'status' | 'creditsUsed' | 'creditsPrior' | 'submittedAt' | 'finishedAt'>;

export interface Progress {
  /** Some of the plan's jobs as the state database has them when the run starts (a page of them; begin may give the rest). */
  found(plan: PlanShape, rows: readonly FoundRow[]): void;
  /** The plan, and the last of its jobs as the state database has them when the run starts: the counting begins. */
  begin(plan: PlanShape, rows: readonly FoundRow[], start?: { joined: boolean }): void;
  /**
   * The run is over: the jobs it began with in doubt and still holds there said in one line (each
   * printed on its own only when it changes), a last redraw (live), and every timer stopped.
   */
  close(): void;
}

/**
 * Progress of a run on stderr, from its events. Live (a terminal): a block at the bottom — a line
 * per step with its jobs per state, credits so far and time left, and the total — redrawn in
 * place; what needs a person (failures, jobs in doubt, stops, notes) prints above it. Plain (no
 * terminal): no escape codes at all; the header, then every event as a line starting with its
 * ISO time, and a status line every `statusEveryMs`. Either way a job in doubt gets one line when
 * it falls in doubt, not another each time a run holds it there (see close).
 */
export function startProgress(events: RunEvents, options: ProgressOptions): Progress {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  let labels: JobIndex<{ label: string }> | undefined;
  let tally: ProgressTally | null = null;
  let concurrency = 1;
  const named = (key: string) => {
    const job = labels?.get(key);
    return job ? `${printable(job.label)}  ${key}` : key;
  };
  const view = () => {
    const steps = tally!.steps(clock.now());
    return { steps, total: tally!.total(steps), elapsed: clock.now() - started };
  };
  const sink = options.mode === 'live' ? liveSink(options, clock, () => (tally ? view() : null), () => concurrency) : plainSink(options, clock, () => (tally ? view() : null));

  let manifest = '';
  let previous: RunStarted['previous'] = null;
  // Jobs in doubt when the run began, and in doubt still since: said together at the end, not one by one.
  const doubtedBefore = new Set<string>();
  events.on('run:started', (e) => {
    concurrency = e.concurrency;
    manifest = e.manifest;
    previous = e.previous;
    sink.header(say.headerLine(e, options.version, clock.now()));
  });
  events.on('job:status', (e) => {
    const before = tally?.statusOf(e.key);
    tally?.update(e);
    // Held in doubt again is not news: a job already in doubt that stays so gets no second line.
    if (e.status === 'in_doubt' && before === 'in_doubt') return sink.refresh();
    doubtedBefore.delete(e.key);
    // A terminal shows status changes in the block; only what needs a person gets a line of its own.
    if (options.mode === 'plain' || say.mattersToPeople(e.status)) sink.line(say.statusText(e, named));
    else sink.refresh();
  });
  const always = <E extends keyof RunEventMap>(event: E, text: (e: RunEventMap[E]) => string) => events.on(event, (e) => sink.line(text(e)));
  always('job:download-failed', (e) => say.downloadFailedText(e, named));
  always('job:read-failed', (e) => say.readFailedText(e, named));
  always('run:stopping', say.stoppingText);
  always('run:note', say.noteText);
  let closed = false;
  // The plan counted from: the pages found and begin count one plan's jobs.
  let counted: PlanShape | undefined;
  const found = (plan: PlanShape, rows: readonly FoundRow[]): ProgressTally => {
    if (counted !== plan || !tally) {
      counted = plan;
      labels = jobIndex(plan);
      tally = new ProgressTally(plan, concurrency, []);
    }
    for (const row of rows) {
      tally.update(row);
      if (row.status === 'in_doubt' && labels!.ordinal(row.key) !== undefined) doubtedBefore.add(row.key);
    }
    return tally;
  };
  return {
    found,
    begin: (plan, rows, start = { joined: false }) => {
      const tally = found(plan, rows);
      // What the run starts from, right after the header, when the run before it left work. A
      // member that joined a live run resumes nothing: the run before its row is, at best, another
      // member starting at the same moment, its lock not yet taken — not a run that died.
      const resumes = start.joined ? null : say.resumeText(previous, tally.total(tally.steps(clock.now())).counts);
      if (resumes) sink.line(resumes);
      else sink.refresh();
    },
    close: () => {
      if (!closed && doubtedBefore.size > 0) sink.line(say.stillInDoubtText(doubtedBefore.size, manifest));
      closed = true;
      sink.close();
    },
  };
}

type View = { steps: ReturnType<ProgressTally['steps']>; total: ReturnType<ProgressTally['total']>; elapsed: number } | null;

interface Sink {
  header(text: string): void;
  /** An event's line (the sink adds the time). */
  line(text: string): void;
  /** The counts changed. */
  refresh(): void;
  close(): void;
}

/** Calls `fn` every `ms` until the returned abort is called. */
function every(clock: Clock, ms: number, fn: () => void): () => void {
  const stop = new AbortController();
  void (async () => {
    while (!stop.signal.aborted) {
      const woke = await clock.sleep(ms, stop.signal).then(() => true, () => false);
      if (!woke || stop.signal.aborted) return;
      fn();
    }
  })();
  return () => stop.abort();
}

function liveSink(options: ProgressOptions, clock: Clock, view: () => View, concurrency: () => number): Sink {
  const size = options.size ?? (() => ({ columns: 80, rows: 24 }));
  const block = new LiveBlock(options.write, size);
  const lines = () => {
    const v = view();
    return v ? say.blockLines(v.steps, v.total, v.elapsed, concurrency(), size().columns) : [];
  };
  let lastDraw = -Infinity;
  let pending = false;
  let closed = false;
  const draw = (above: string[] = []) => {
    lastDraw = clock.now();
    block.render(lines(), above);
  };
  // Redraws wait out REDRAW_MIN_MS since the last one; lines above are printed at once (with a redraw).
  const redraw = () => {
    if (pending || closed) return;
    const wait = lastDraw + REDRAW_MIN_MS - clock.now();
    if (wait <= 0) return draw();
    pending = true;
    void clock.sleep(wait).then(() => {
      pending = false;
      if (!closed) draw();
    });
  };
  const stopTicking = every(clock, LIVE_TICK_MS, redraw);
  const time = () => isoTime(clock.now()).slice(11, 19);
  return {
    header: (text) => draw([text]),
    line: (text) => draw([`${time()}  ${text}`]),
    refresh: redraw,
    close: () => {
      if (closed) return;
      stopTicking();
      draw();
      closed = true;
    },
  };
}

function plainSink(options: ProgressOptions, clock: Clock, view: () => View): Sink {
  const line = (text: string) => options.write(`${isoTime(clock.now())}  ${text}\n`);
  const stopTicking = every(clock, options.statusEveryMs ?? STATUS_EVERY_MS, () => {
    const v = view();
    if (v) line(say.statusLine(v.steps, v.total, v.elapsed));
  });
  return {
    header: (text) => options.write(`${text}\n`),
    line,
    refresh: () => undefined,
    close: stopTicking,
  };
}
