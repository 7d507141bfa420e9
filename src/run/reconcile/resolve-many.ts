import pLimit from 'p-limit';
import type { ServiceClient } from '../../api/index.js';
import { InvalidInputError, ReelpipeError, type InputIssue } from '../../errors.js';
import type { PlannedJob } from '../../plan/types.js';
import type { JobRow, Store } from '../../state/index.js';
import { plural } from '../../util/format.js';
import type { DecisionLine } from './decision-file.js';
import { checkDecision, recordSettlements, settlementWrite, type Settlement } from './resolve-doubt.js';

/** GETs of adopted ids on the wire at once: a long file is checked in reasonable time without crowding the service. */
const CHECKS_AT_ONCE = 4;

/** One line's decision as recorded. */
export interface Settled {
  line: number;
  settlement: Settlement;
  row: JobRow;
}

/**
 * Settles many jobs in doubt at once (`reelpipe resolve MANIFEST --from FILE`), all or nothing.
 * Each line is checked exactly as a single `resolve` checks it (checkDecision: the job is in
 * doubt; an adopted id is confirmed by a GET), and besides, no job and no adopted remote id may
 * appear twice. Every check — the GETs included — is made before anything is written; then the
 * decisions are recorded in one durable transaction. Any problem, and nothing is settled: an
 * InvalidInputError names each by `FILE:LINE`, the file's own (`file.issues`: lines that are no
 * decision) among them, so one reading names them all. A failed GET is no problem of the file: it
 * propagates as it is, nothing settled either. `jobOf` finds a job by its key or label, throwing
 * a usage error that says what it would accept.
 */
export async function resolveMany(
  store: Store,
  client: ServiceClient | undefined,
  jobOf: (name: string) => PlannedJob,
  file: { display: string; lines: readonly DecisionLine[]; issues: readonly InputIssue[] },
  by: string,
): Promise<Settled[]> {
  const issues: InputIssue[] = [...file.issues];
  const problem = (line: number, message: string) => issues.push({ file: file.display, line, message });
  const toCheck = namedOnce(file.lines, jobOf, problem);
  const limit = pLimit(CHECKS_AT_ONCE);
  const checked = await Promise.allSettled(toCheck.map(({ line, job, decision }) => limit(async () => ({ line, checked: await checkDecision(store, client, job, decision) }))));
  const failure = checked.find((c) => c.status === 'rejected');
  if (failure) throw failure.reason;
  const settlements: { line: number; settlement: Settlement }[] = [];
  for (const result of checked) {
    if (result.status !== 'fulfilled') continue;
    const { line, checked: outcome } = result.value;
    if ('refused' in outcome) problem(line, outcome.refused);
    else settlements.push({ line, settlement: outcome });
  }
  if (issues.length > 0) {
    throw new InvalidInputError(issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)), `${file.display}: ${plural(issues.length, 'problem')}; nothing was settled`);
  }
  const now = store.clock.now();
  const rows = await recordSettlements(store, settlements.map(({ line, settlement }) => settlementWrite(settlement, by, now, `${file.display}:${line}`)));
  return settlements.map(({ line, settlement }, i) => ({ line, settlement, row: rows[i]! }));
}

/**
 * The lines whose job is known, each job and each adopted remote id once; a problem for every
 * other line. Why here, before any GET: each check alone would pass both lines of a pair, and one
 * remote job adopted by two jobs would be paid for once and delivered twice.
 */
function namedOnce(
  lines: readonly DecisionLine[],
  jobOf: (name: string) => PlannedJob,
  problem: (line: number, message: string) => void,
): (DecisionLine & { job: PlannedJob })[] {
  const jobLines = new Map<string, number>();
  const idLines = new Map<string, number>();
  const named: (DecisionLine & { job: PlannedJob })[] = [];
  for (const entry of lines) {
    let job: PlannedJob;
    try {
      job = jobOf(entry.name);
    } catch (error) {
      if (!(error instanceof ReelpipeError)) throw error;
      problem(entry.line, error.message);
      continue;
    }
    const first = jobLines.get(job.key);
    if (first !== undefined) {
      problem(entry.line, `${job.label} (${job.key}) is named on line ${first} already: one decision per job`);
      continue;
    }
    jobLines.set(job.key, entry.line);
    if ('adopt' in entry.decision) {
      const firstId = idLines.get(entry.decision.adopt);
      if (firstId !== undefined) {
        problem(entry.line, `${entry.decision.adopt} is adopted on line ${firstId} already: one remote job belongs to one job`);
        continue;
      }
      idLines.set(entry.decision.adopt, entry.line);
    }
    named.push({ ...entry, job });
  }
  return named;
}
