import { userInfo } from 'node:os';
import { thisHost } from '../../util/host-name.js';
import type { ServiceClient } from '../../api/index.js';
import { UsageError } from '../../errors.js';
import type { PlannedJob } from '../../plan/types.js';
import { StaleWriteError, type AttemptRow, type JobRow, type JobWrite, type Store } from '../../state/index.js';
import { stateWord } from '../../state/vocabulary.js';
import { adapterFor, type Resource } from '../adapters/index.js';
import { endOf, endWrite } from '../track/record-end.js';
import { confirmRemote } from './confirm-remote.js';

/** The operator's word on a job in doubt. */
export type Decision = { adopt: string } | { absent: true };

/** A decision checked (for an adopt, at the service) and ready to record; `resource` is what the GET returned. */
export interface Settlement {
  job: PlannedJob;
  decision: Decision;
  resource?: Resource;
  /** The job and its last attempt as checked: the write settles them only while the job is still in doubt. */
  row: JobRow;
  attempt: AttemptRow | undefined;
}

/** Who decided, for the event log: the account and machine the command ran as. */
export function decidedBy(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the host still says where.
  }
  return `${user}@${thisHost()}`;
}

/**
 * Checks the operator's word on a job held in doubt (`reelpipe resolve`), writing nothing: the
 * job must be in doubt, and an adopted id must be confirmed by a GET (confirm-remote.ts: the kind,
 * what was asked, and an id nobody else owns). Returns the settlement to record, or why it is
 * refused. Why check apart from recording: `resolve --from` checks every line (each GET) before
 * the one transaction that records them all, and a single `resolve` goes the same way.
 */
export async function checkDecision(store: Store, client: ServiceClient | undefined, job: PlannedJob, decision: Decision): Promise<Settlement | { refused: string }> {
  const row = await store.job(job.key);
  if (!row || row.status !== 'in_doubt') {
    return { refused: `${job.label} (${job.key}) is not in doubt (it is ${row ? stateWord(row.status) : 'not recorded yet'}); only a job in doubt can be resolved` };
  }
  const attempt = await store.lastAttempt(job.key);
  if ('absent' in decision) return { job, decision, row, attempt };
  const adapter = adapterFor(job.kind, job.mode);
  const confirmed = await confirmRemote(client as ServiceClient, store, adapter, decision.adopt, attempt?.request ?? row.request, attempt?.id ?? null);
  if ('refused' in confirmed) return { refused: `${decision.adopt} was not adopted for ${job.label} (${job.key}): ${confirmed.refused}` };
  return { job, decision, resource: confirmed.resource, row, attempt };
}

/**
 * Records a checked decision, as a `job:resolved` event with who decided (and `from`, the line of
 * a `--from` file that said it), only while the job is still in doubt (see resolveDoubt):
 *   - `adopt REMOTE_ID`: the job the POST made was found by hand (the service's dashboard, an
 *     export). It takes the state the GET showed, recorded as the tracker records a read: still
 *     under way, `submitted` (the next run tracks and downloads it, paying nothing more); ended,
 *     `done` with its files' links, or `failed` (`rejected`) with the service's reason and cost —
 *     `reelpipe retry` then resubmits it. A kind finished at creation is done with what it returned.
 *   - `absent`: the operator says nothing was created. The job is planned again: the next run
 *     submits it (and pays for it). Said once, and recorded — the operator's word replaces the
 *     evidence a search would give.
 * The write that records it.
 */
export function settlementWrite(settlement: Settlement, by: string, now: number, from?: string): JobWrite {
  const { job, decision, resource, row, attempt } = settlement;
  const said = { by, ...(from ? { from } : {}) };
  const onlyFrom = ['in_doubt'] as const;
  if ('absent' in decision) {
    return {
      key: job.key,
      onlyFrom,
      ...(attempt ? { attempt: { id: attempt.id, state: 'absent' as const, error: `the operator (${by}) said nothing was created` } } : {}),
      move: { to: 'planned', change: { creditsReserved: 0, remoteId: null }, type: 'job:resolved', data: { decision: 'absent', ...said } },
    };
  }
  const adapter = adapterFor(job.kind, job.mode);
  const view = adapter.view(resource as Resource);
  const adopted = { remoteId: decision.adopt, submittedAt: row.submittedAt ?? attempt?.intentAt ?? now };
  const event = { type: 'job:resolved' as const, data: { decision: 'adopt', remoteId: decision.adopt, ...said } };
  const matched = attempt ? { attempt: { id: attempt.id, state: 'matched' as const, remoteId: decision.adopt } } : {};
  if (view.phase === 'pending') {
    return { key: job.key, onlyFrom, ...matched, move: { to: 'submitted', change: { ...adopted, remoteStatus: view.remoteStatus, result: resource }, type: event.type, data: event.data } };
  }
  // A job the service rejected (refused on review) is `rejected`, as one refused at creation is.
  const ended = endWrite({ row, planned: job, adapter }, endOf(view), { resource: resource as Resource, view, at: now }, { ...event, extra: adopted, onlyFrom });
  return { ...ended.write, ...matched };
}

/**
 * Records settlements in one durable transaction, all or nothing: a job that left doubt since it
 * was checked (another process settled or retried it) refuses the lot, saying which.
 */
export async function recordSettlements(store: Store, writes: readonly JobWrite[]): Promise<JobRow[]> {
  try {
    return (await store.writeAll(writes, { durable: true, allOrNothing: true })).map((w) => w.row);
  } catch (error) {
    if (!(error instanceof StaleWriteError)) throw error;
    throw new UsageError(`${error.row.key} is ${stateWord(error.row.status)} now, no longer in doubt; nothing was settled`);
  }
}

/** Checks and records one decision (`reelpipe resolve MANIFEST JOB …`), durably; a refusal is a usage error. */
export async function resolveDoubt(
  store: Store,
  client: ServiceClient | undefined,
  job: PlannedJob,
  decision: Decision,
  by: string = decidedBy(),
): Promise<JobRow> {
  const checked = await checkDecision(store, client, job, decision);
  if ('refused' in checked) throw new UsageError(checked.refused);
  const [row] = await recordSettlements(store, [settlementWrite(checked, by, store.clock.now())]);
  return row!;
}
