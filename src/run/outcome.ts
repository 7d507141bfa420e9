import {
  BudgetExceededError,
  InsufficientCreditsError,
  InterruptedError,
  JobsFailedError,
  JobsInDoubtError,
  LocalFaultError,
  LockedError,
  ReelpipeError,
  UnfinishedError,
} from '../errors.js';
import { overrunText, pairText } from '../report/credits.js';
import { formatCredits, plural } from '../util/format.js';
import type { RunResult } from './execute-plan.js';
import { openCount, type Standing } from './standing.js';

/** A job's label in the plan, for messages that name jobs; undefined names it by its key. */
export type LabelOf = (key: string) => string | undefined;

/** What the messages are written from: where the jobs stand, the manifest as typed, the plan's labels. */
interface Said {
  standing: Standing;
  manifest: string;
  labelOf: LabelOf;
}

/**
 * The error that ends a run, or undefined for exit 0, decided from where the jobs stand in the
 * state database (standing.ts). The precedence tells the operator what to do next:
 *
 *   1. the lock was taken by another run                      → 75: that run carries on
 *   2. some job can still move on by running again:
 *        why the run stopped early decides the code (a signal, --max-wait, an unreachable
 *        service → 4; the budget or the account's credits → 3; refused credentials → 2;
 *        a local disk or database fault → 74; --halt-after N failures → 1),
 *        else                                                   → 4: run the same command again
 *   3. jobs in doubt that only a person can settle, and the jobs  → 5: reelpipe doubt, then resolve
 *      planned behind them (no run starts those before a person
 *      settles the job they wait on: running again changes nothing)
 *   4. jobs failed, partly failed (some of their items), rejected, or never started because one
 *      they need failed                                        → 1: reelpipe retry
 *      or their output hooks failed (hook_failed, files on disk)  → 1: reelpipe retry --hooks
 *      or their files were refused (too large, private address…) → 1: fix, run again (no new POST)
 *   5. everything finished and on disk                          → 0
 *
 * A stop with nothing left to do is not an error: a finished manifest whose past spend is over
 * a lowered cap, or a SIGINT after the last download, exits 0. The message gives one instruction
 * for each thing that needs the operator, the main verdict's first, never the same one twice.
 */
export function runOutcome(result: RunResult, manifest: string, labelOf: LabelOf = () => undefined): ReelpipeError | undefined {
  const said: Said = { standing: result.standing, manifest, labelOf };
  const { standing } = result;
  const message = result.stopMessage ?? '';
  // A member of a shared run that stopped itself and does not end the run says why it stopped (74,
  // 75, 130…): the run's standing is for the member that ends it to report.
  if (result.endsRun === false && result.stop !== null && result.stop !== 'lock-lost') return stoppedEarly(result, said) ?? new UnfinishedError(message);
  if (result.stop === 'lock-lost') {
    return new LockedError(`${message}; this run stopped at once, its work is recorded and the other run carries on`);
  }
  if (openCount(standing) > 0) return stoppedEarly(result, said) ?? new UnfinishedError(`${openText(standing)}: run the same command again to resume${alsoText(said)}`);
  if (standing.undecided.length > 0) return new JobsInDoubtError(doubtText(said) + failedNote(said, false));
  if (needsAFix(standing) > 0) return new JobsFailedError(failedText(said));
  return undefined;
}

function stoppedEarly(result: RunResult, said: Said): ReelpipeError | undefined {
  const message = result.stopMessage ?? '';
  // The stop's message starts with the signal's name when a signal stopped the run ("SIGTERM received").
  const signal = /^SIG[A-Z]+/.exec(message)?.[0] ?? 'a signal';
  const left = openText(said.standing);
  const also = alsoText(said);
  switch (result.stop) {
    case 'interrupted':
      return new InterruptedError(signal, left, also);
    case 'auth':
      return new ReelpipeError('API_UNAUTHORIZED', `the service refused the credentials; nothing more was submitted: ${message}`);
    case 'credits':
      return new InsufficientCreditsError(`the account ran out of credits; submitting stopped: ${message}; ${left}${also}`);
    case 'budget':
      return new BudgetExceededError(`${budgetMessage(result, message)}; ${left}${also}`);
    case 'deadline':
    case 'unreachable':
      return new UnfinishedError(`${message}; ${left}: the next run carries on${also}`);
    case 'local-fault':
      return new LocalFaultError(`${message}; ${left}: fix the machine, then run the same command again${also}`);
    case 'state-held':
      return new LockedError(`${message}; nothing more could be recorded, so the run stopped; ${left}: run the same command again once that process has gone on or ended${also}`);
    // The failures are why the run stopped: read them first (exit 1); retry then resubmits them and
    // runs the rest, so it is the one instruction for both (and the failures are said once, here).
    case 'halt-after': {
      const retry = `see the summary, fix the cause, then \`reelpipe retry ${said.manifest}\` (it resubmits the failed jobs and runs the rest)`;
      const failed = failedText(said, retry, true) || retry;
      return new JobsFailedError(`${message}; ${left}; ${failed}${doubtNote(said)}`);
    }
    default:
      return undefined;
  }
}

function openText(standing: Standing): string {
  const { rendering, toDownload, notSubmitted, toSearch } = standing.open;
  const parts = [
    [rendering.length, 'still rendering at the service'],
    [toDownload.length, 'finished, files not yet downloaded'],
    [notSubmitted.length, 'not submitted yet'],
    [toSearch.length, 'in doubt, to be searched for at the service'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${formatCredits(n)} ${what}`);
  return `${plural(openCount(standing), 'job')} left (${said.join(', ')})`;
}

/** What else needs the operator, said after a main verdict that leads to another run (refused files are not told to run again twice). */
function alsoText(said: Said): string {
  return doubtNote(said) + failedNote(said, true);
}

function doubtNote(said: Said): string {
  return said.standing.undecided.length > 0 ? `; also ${doubtText(said)}` : '';
}

function doubtText(said: Said): string {
  const { undecided, waitingOnDoubt } = said.standing;
  return (
    `${plural(undecided.length, 'job')} in doubt need${undecided.length === 1 ? 's' : ''} a decision — ` +
    `each may exist (and be paid for) at the service, which cannot be searched for it: see \`reelpipe doubt ${said.manifest}\`, ` +
    `then \`reelpipe resolve ${said.manifest} JOB --adopt REMOTE_ID\` or \`--absent\`` +
    (waitingOnDoubt.length > 0 ? `; ${waitingText(said)}` : '')
  );
}

/** Names listed per job in doubt, and jobs in doubt listed, in the message: it stays one readable line. */
const WAITING_NAMED = 5;
const DOUBTS_NAMED = 3;

/** `7 jobs wait on 1 job in doubt: product-link (links:abc123) ← short-1, short-2, … and 2 more`. */
function waitingText(said: Said): string {
  const { waitingOnDoubt } = said.standing;
  const byDoubt = new Map<string, string[]>();
  for (const { key, on } of waitingOnDoubt) {
    for (const doubt of on) {
      const keys = byDoubt.get(doubt);
      if (keys) keys.push(key);
      else byDoubt.set(doubt, [key]);
    }
  }
  const label = (key: string) => said.labelOf(key) ?? key;
  const named = (key: string) => (said.labelOf(key) === undefined ? key : `${label(key)} (${key})`);
  const groups = [...byDoubt].slice(0, DOUBTS_NAMED).map(([doubt, keys]) => `${named(doubt)} ← ${listed(keys.map(label), WAITING_NAMED)}`);
  const more = byDoubt.size > DOUBTS_NAMED ? `; and ${plural(byDoubt.size - DOUBTS_NAMED, 'more job')} in doubt` : '';
  const n = waitingOnDoubt.length;
  return `${plural(n, 'job')} wait${n === 1 ? 's' : ''} on ${plural(byDoubt.size, 'job')} in doubt: ${groups.join('; ')}${more}`;
}

/** `a, b, c and 4 more`. */
function listed(names: readonly string[], most: number): string {
  return names.length <= most ? names.join(', ') : `${names.slice(0, most).join(', ')} and ${names.length - most} more`;
}

/** Jobs that no run moves on until a person does something: failed, blocked, hook failed, refused files. */
function needsAFix(standing: Standing): number {
  return standing.failed.length + standing.rejected.length + standing.partlyFailed.length + standing.blocked.length + standing.hookFailed.length + standing.refused.length;
}

/** `runAgainSaid`: the main verdict already tells the operator to run again (see refusedText). */
function failedNote(said: Said, runAgainSaid: boolean): string {
  return needsAFix(said.standing) > 0 ? `; ${failedText(said, undefined, runAgainSaid)}` : '';
}

/**
 * The jobs that need a fix and what to do about each kind. `retry`: the instruction for failed,
 * partly failed, rejected and blocked jobs (the halt-after stop words its own).
 */
function failedText(said: Said, retry = `see the summary, then \`reelpipe retry ${said.manifest}\``, runAgainSaid = false): string {
  const hooks = [hookFailedText(said), refusedText(said, runAgainSaid)].filter(Boolean).join('; ');
  const { failed, rejected, partlyFailed, blocked } = said.standing;
  if (failed.length + rejected.length + partlyFailed.length + blocked.length === 0) return hooks;
  const what = [
    ...(failed.length > 0 ? [`${plural(failed.length, 'job')} failed`] : []),
    ...(partlyFailed.length > 0 ? [`${plural(partlyFailed.length, 'job')} partly failed (some of ${partlyFailed.length === 1 ? 'its' : 'their'} items failed; the made ones are on disk)`] : []),
    ...(rejected.length > 0 ? [`${plural(rejected.length, 'job')} ${rejected.length === 1 ? 'was' : 'were'} rejected by the service`] : []),
    ...(blocked.length > 0 ? [`${plural(blocked.length, 'job')} not started because a job they need failed`] : []),
  ];
  return `${what.join(' and ')}: ${retry}${hooks ? `; ${hooks}` : ''}`;
}

/**
 * Refused files are not a failed job: it was made and paid for; after the fix, a plain run fetches
 * them. After a verdict that already says to run again, that is not said a second time.
 */
function refusedText(said: Said, runAgainSaid: boolean): string {
  const n = said.standing.refused.length;
  if (n === 0) return '';
  const fix = runAgainSaid ? 'fix it, and the next run fetches them without paying again' : 'fix it, then run the same command again — it fetches them without paying again';
  return (
    `${plural(n, 'job')} finished at the service but ${n === 1 ? 'its files were' : 'their files were'} refused (too large, at a private address, or behind a link in the outputs folder): ` +
    `see the reason in \`reelpipe status ${said.manifest}\`, ${fix}`
  );
}

/** A failed hook is not a failed job: its files are on disk, and only the hook is run again. */
function hookFailedText(said: Said): string {
  const n = said.standing.hookFailed.length;
  if (n === 0) return '';
  return `${plural(n, 'job')} finished with ${n === 1 ? 'its' : 'their'} files on disk but an output hook failed: see \`reelpipe status ${said.manifest}\`, then \`reelpipe retry ${said.manifest} --hooks\``;
}

/**
 * The budget stop, told truthfully and in the summary's words: what the ledger counts against the
 * cap beside what the service reported as used (the figures the summary's credits line gives),
 * and, when a job's real cost (known only once paid) passed its high estimate and pushed the count
 * over the cap, that plainly, with the jobs that did it by label and key. `why` is the stop's own
 * reason, with the figures as they were at that moment.
 */
export function budgetMessage(result: RunResult, why: string): string {
  const { spent, cap, overruns, used, unknownUsed } = result.credits;
  const usedSaid = Math.abs(spent - (used ?? 0)) > 0.005 || unknownUsed > 0 ? ` (used ${pairText(used, unknownUsed)}: a cost not reported counts at its high estimate)` : '';
  const head = `the credit cap stopped submitting: ${formatCredits(spent)} counted against the cap of ${formatCredits(cap ?? 0)}${usedSaid}`;
  if (cap === null || spent <= cap + 1e-9) return `${head}; when it stopped, ${why}`;
  const culprits = overruns.map((o) => overrunText({ key: o.key, label: o.label, charged: o.used, high: o.reserved })).join('; ');
  return (
    `${head} — PAST the cap by ${formatCredits(Math.round((spent - cap) * 100) / 100)}` +
    (culprits ? ` because real costs exceeded their high estimates: ${culprits}` : '') +
    `; a job's real cost is known only once it is paid. When it stopped, ${why}`
  );
}
