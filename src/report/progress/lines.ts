import type { PreviousRun, RunEventMap, RunStarted } from '../../run/run-events.js';
import { countsText, NEEDS_ATTENTION, STATE_WORDS, stateWord, type StateWord } from '../../state/vocabulary.js';
import { formatCredits, plural } from '../../util/format.js';
import { oneLine, printable } from '../../util/one-line.js';
import { formatDuration, isoTime } from '../../util/time-format.js';
import { creditsText } from '../credits.js';
import { fitToWidth, usableColumns, widthOf } from './fit.js';
import { sumSteps, type StepTally } from './tally.js';

/**
 * The words of progress, shared by the live block and the plain log: the header, one line per
 * event, one per step, and the periodic status line. Pure: callers add time and write.
 */

/** `reelpipe 0.1.0 · run 12 · started 2026-…+01:00 · manifest … · state … · log … · plan: 9 jobs in 5 steps, …`. */
export function headerLine(run: RunStarted, version: string, at: number): string {
  const credits = creditsText({ known: run.expectedCredits ?? 0, unknownJobs: run.unknownJobs, jobs: run.jobs });
  const cap = run.maxCredits === null ? 'no cap' : `cap ${formatCredits(run.maxCredits)}`;
  return [
    `reelpipe ${version}${run.sandbox ? ' (sandbox)' : ''}`,
    `run ${run.runId}`,
    `started ${isoTime(at)}`,
    `manifest ${run.manifest}`,
    `state ${run.statePath}`,
    ...(run.logFile ? [`log ${run.logFile}`] : []),
    `plan: ${plural(run.jobs, 'job')} in ${plural(run.steps, 'step')}, ${credits} credits expected, ${cap}, concurrency ${run.concurrency}`,
  ].join(' · ');
}

/**
 * What a run starts from when the run before it left work, said right after the header:
 * `resumes run 11, which died (no end recorded): 4 done, 2 at the service, 1 in doubt, 3 to send`
 * (then the jobs to download and those failed or refused, when there are any). `counts`: the
 * run's jobs per state as it read them at its start. Null when there is nothing to resume: no
 * run before, one still running (this run waits for its lock), or one that ended normally. Policy:
 * a run with no end recorded always left work (`reelpipe runs` says `died`), whatever the counts;
 * one that ended `OK` or `JOBS_FAILED` took every job as far as a run can (the failed ones wait
 * for `reelpipe retry`, whose reset jobs would otherwise read as work left); one that ended with
 * another error (INTERRUPTED, UNFINISHED, the budget, jobs in doubt…) left work if a job is open.
 */
export function resumeText(previous: PreviousRun | null, counts: Partial<Record<StateWord, number>>): string | null {
  if (previous === null || previous.state === 'running') return null;
  const n = (...words: StateWord[]) => words.reduce((sum, word) => sum + (counts[word] ?? 0), 0);
  const open = n('submitted', 'running', 'submitting', 'in doubt', 'not submitted', 'changed', 'finished');
  if (previous.state === 'finished' && (ENDED_NORMALLY.includes(previous.outcome ?? '') || open === 0)) return null;
  const how = previous.state === 'died' ? 'which died (no end recorded)' : `which ended ${printable(previous.outcome ?? 'without an outcome')}`;
  const parts = [`${n('done')} done`, `${n('submitted', 'running')} at the service`, `${n('submitting', 'in doubt')} in doubt`, `${n('not submitted', 'changed')} to send`];
  if (n('finished') > 0) parts.push(`${n('finished')} to download`);
  const stuck = countsText(pickWords(counts, ['hook failed', 'partly failed', 'failed', 'rejected']));
  return `resumes run ${previous.runId}, ${how}: ${[...parts, ...(stuck ? [stuck] : [])].join(', ')}`;
}

/** Outcomes of a run that took every job as far as a run can: the next run resumes nothing. */
const ENDED_NORMALLY: readonly string[] = ['OK', 'JOBS_FAILED'];

const pickWords = (counts: Partial<Record<StateWord, number>>, words: readonly StateWord[]) =>
  Object.fromEntries(words.map((word) => [word, counts[word] ?? 0])) as Partial<Record<StateWord, number>>;

/** The vocabulary's word for a status change; the ones that need a person in capitals, to stand out in a log. */
function says(status: RunEventMap['job:status']['status']): string {
  const word = stateWord(status);
  return NEEDS_ATTENTION.includes(word) ? word.toUpperCase() : word;
}

/** Whether a status change needs a person (failed, rejected, in doubt): the live block prints only these above itself. */
export const mattersToPeople = (status: RunEventMap['job:status']['status']) => NEEDS_ATTENTION.includes(stateWord(status));

type Named = (key: string) => string;

/** `submitted     short-TR2-BLK  shorts:f99f…  7d11…  detail`: a job's status change, service text on one line. */
export function statusText(e: RunEventMap['job:status'], named: Named): string {
  const id = e.remoteId ? `  ${printable(e.remoteId)}` : '';
  // A remote status that only repeats the word (`running`) adds nothing.
  const detail = e.detail && e.detail !== stateWord(e.status) ? `  ${oneLine(e.detail)}` : '';
  return `${says(e.status).padEnd(13)} ${named(e.key)}${id}${detail}`;
}

export const downloadFailedText = (e: RunEventMap['job:download-failed'], named: Named) => `download failed  ${named(e.key)}  ${oneLine(e.message)}`;
export const readFailedText = (e: RunEventMap['job:read-failed'], named: Named) =>
  `${e.giveUp ? 'READ GIVEN UP' : 'read failed'}  ${named(e.key)}  ${oneLine(e.message)}`;
/** `stopping (SIGINT): no new jobs are sent; …`, or `stopping: MESSAGE` when the message names its cause; `message` as it is said. */
export const stoppingWords = (e: RunEventMap['run:stopping'], message = e.message) => `stopping${e.cause ? ` (${printable(e.cause)})` : ''}: ${message}`;
export const stoppingText = (e: RunEventMap['run:stopping']) => stoppingWords(e, oneLine(e.message));
export const noteText = (e: RunEventMap['run:note']) => oneLine(e.message);

/** The jobs a run began with in doubt and still holds there, in one line rather than one each. */
export const stillInDoubtText = (jobs: number, manifest: string) =>
  `still in doubt from earlier runs: ${plural(jobs, 'job')} (reelpipe doubt ${printable(manifest)} lists them)`;

/** Steps listed one by one at most; more are summed into one line. Why 10: the block must fit a terminal. */
export const MAX_STEP_LINES = 10;

/**
 * `ETA 3m05s`, `ETA —` until a job of the step has finished; nothing once nothing is left to
 * make. The total's `ETA ≥3m05s` counts only the steps with a finished job (tally.ts).
 */
function etaText(t: StepTally): string {
  if (t.remaining === 0) return '';
  return `ETA ${t.etaMs === null ? '—' : `${t.etaAtLeast ? '≥' : ''}${formatDuration(t.etaMs)}`}`;
}

/** `12`, `12+?` when some finished jobs' cost is unknown, `?` when all are (as the plan writes it). */
function creditsShort(c: StepTally['credits']): string {
  if (c.unknownJobs === 0) return formatCredits(c.known);
  return c.unknownJobs === c.jobs ? '?' : `${formatCredits(c.known)}+?`;
}

/** A tally's figures, part by part: what a narrow terminal drops or reorders (fitTally). */
interface TallyParts {
  settled: string;
  eta: string;
  extra: string;
  credits: string;
  /** Every count, in the vocabulary's order. */
  counts: string;
  /** The counts that need a person (failed, in doubt…), one each, and the others. */
  attention: string[];
  others: string[];
}

function tallyParts(t: StepTally, extra: string): TallyParts {
  const each = (keep: (word: StateWord) => boolean) => STATE_WORDS.filter((w) => t.counts[w] && keep(w)).map((w) => countsText({ [w]: t.counts[w] }));
  return {
    settled: `${t.settled}/${t.jobs}`,
    eta: etaText(t),
    extra,
    credits: `${creditsShort(t.credits)} credits`,
    counts: countsText(t.counts) || 'no jobs',
    attention: each((w) => NEEDS_ATTENTION.includes(w)),
    others: each((w) => !NEEDS_ATTENTION.includes(w)),
  };
}

/** `6/10  ETA 40s · 12 credits · 4 done`: the settled count, then the parts given, those not empty. */
const joinTally = (p: TallyParts, parts: readonly string[]) => `${p.settled}  ${parts.filter((part) => part !== '').join(' · ')}`;

/**
 * A step's (or the total's) figures, the longest part last:
 * `6/10  ETA 40s · [extra · ]12 credits · 4 done, 2 running`.
 */
export function tallyText(t: StepTally, extra = ''): string {
  const p = tallyParts(t, extra);
  return joinTally(p, [p.eta, p.extra, p.credits, p.counts]);
}

/**
 * A block line at most `columns - 1` wide that keeps the counts needing a person in sight. Policy:
 * on a narrow terminal the least useful part goes first — the time left, then the elapsed time
 * (the total's), then the credits; then the counts needing a person come first and as many of
 * the others as fit after them (`…` for the rest); then the bar goes (the `6/10` beside it says
 * the same); then the step's name is cut short. Why: a line cut at its end, `6/10  ETA 40s · 12 credits · 4 done, 2 running, 1 fa…`,
 * hid the failure, the one thing the block must never hide.
 */
function fitTally(name: string, barText: string, p: TallyParts, columns: number): string {
  const limit = usableColumns(columns);
  const head = `${name}  ${barText}  `;
  for (const parts of [[p.eta, p.extra, p.credits, p.counts], [p.extra, p.credits, p.counts], [p.credits, p.counts], [p.counts]]) {
    const line = head + joinTally(p, parts);
    if (widthOf(line) <= limit) return line;
  }
  for (const start of [head, `${name}  `]) {
    for (let others = p.others.length; others >= 0; others--) {
      const counts = [...p.attention, ...p.others.slice(0, others), ...(others < p.others.length ? ['…'] : [])];
      const line = start + joinTally(p, [counts.join(', ')]);
      // A line whose counts are all `…` says nothing: the bar goes first.
      const saysSome = p.attention.length + others > 0 || p.others.length === 0;
      if (widthOf(line) <= limit && saysSome) return line;
    }
  }
  // Narrower still: the step's name gives way (its padding, then its end, down to 2 columns), then the line's end is cut.
  const withMore = `  ${joinTally(p, [[...p.attention, ...(p.others.length ? ['…'] : [])].join(', ')])}`;
  const rest = widthOf(withMore) + 2 <= limit ? withMore : `  ${joinTally(p, [p.attention.join(', ')])}`;
  const room = Math.max(2, limit - widthOf(rest));
  const bare = name.trimEnd();
  const short = name.length <= room ? name : bare.length <= room ? bare : `${bare.slice(0, room - 1)}…`;
  return fitToWidth(short + rest, columns);
}

const BAR_CELLS = 10;

/** `██████░░░░`: the share of jobs whose end is known. */
export function bar(t: StepTally): string {
  const full = t.jobs === 0 ? BAR_CELLS : Math.floor((t.settled / t.jobs) * BAR_CELLS);
  return '█'.repeat(full) + '░'.repeat(BAR_CELLS - full);
}

/**
 * The block's lines: a line per step (at most MAX_STEP_LINES; past that the steps with work
 * going on first, the rest summed in one line) and the total with the time elapsed, each fitted
 * to a terminal `columns` wide (fitTally).
 * @default columns Infinity (nothing shortened)
 */
export function blockLines(steps: readonly StepTally[], total: StepTally, elapsedMs: number, concurrency: number, columns = Infinity): string[] {
  const shown = pickSteps(steps);
  const width = Math.min(24, Math.max(5, ...shown.map((s) => s.id.length)));
  const clip = (name: string) => (name.length > width ? `${name.slice(0, width - 1)}…` : name.padEnd(width));
  const line = (name: string, t: StepTally, extra = '') => fitTally(clip(printable(name)), bar(t), tallyParts(t, extra), columns);
  const lines = shown.map((s) => line(s.id, s));
  const hidden = steps.filter((s) => !shown.includes(s));
  if (hidden.length > 0) lines.push(line(`+${hidden.length} steps`, sumSteps('more', hidden, concurrency)));
  lines.push(line('total', total, `${formatDuration(elapsedMs)} elapsed`));
  return lines;
}

/** `progress: 6/10  4 done, 2 running · 12 credits · ETA 40s · 2m elapsed — shorts 3/3, clones 1/3`. */
export function statusLine(steps: readonly StepTally[], total: StepTally, elapsedMs: number): string {
  const perStep = steps.slice(0, MAX_STEP_LINES).map((s) => `${s.id} ${s.settled}/${s.jobs}`);
  if (steps.length > MAX_STEP_LINES) perStep.push(`+${steps.length - MAX_STEP_LINES} steps`);
  return `progress: ${tallyText(total, `${formatDuration(elapsedMs)} elapsed`)} — ${perStep.join(', ')}`;
}

const IN_FLIGHT: readonly StateWord[] = ['submitting', 'submitted', 'running', 'finished'];

/** Which steps get a line of their own: all when they fit; else those with work going on, then those with work left, in plan order. */
function pickSteps(steps: readonly StepTally[]): StepTally[] {
  if (steps.length <= MAX_STEP_LINES) return [...steps];
  const active = (s: StepTally) => IN_FLIGHT.some((word) => (s.counts[word] ?? 0) > 0);
  const rank = (s: StepTally) => (active(s) ? 0 : s.remaining > 0 ? 1 : 2);
  const chosen = new Set([...steps].sort((a, b) => rank(a) - rank(b)).slice(0, MAX_STEP_LINES - 1));
  return steps.filter((s) => chosen.has(s));
}
