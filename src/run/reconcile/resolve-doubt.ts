import { userInfo, hostname } from 'node:os';
import type { ServiceClient } from '../../api/index.js';
import { UsageError } from '../../errors.js';
import type { PlannedJob } from '../../plan/types.js';
import type { JobRow, StateStore } from '../../state/index.js';
import { stateWord } from '../../state/vocabulary.js';
import { adapterFor, type Resource } from '../adapters/index.js';
import { endOf, recordEnd } from '../track/record-end.js';
import { confirmRemote } from './confirm-remote.js';

/** The operator's word on a job in doubt. */
export type Decision = { adopt: string } | { absent: true };

/** A decision checked (for an adopt, at the service) and ready to record; `resource` is what the GET returned. */
export interface Settlement {
  job: PlannedJob;
  decision: Decision;
  resource?: Resource;
}

/** Who decided, for the event log: the account and machine the command ran as. */
export function decidedBy(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the host still says where.
  }
  return `${user}@${hostname()}`;
}

/**
 * Checks the operator's word on a job held in doubt (`reelpipe resolve`), writing nothing: the
 * job must be in doubt, and an adopted id must be confirmed by a GET (confirm-remote.ts: the kind,
 * what was asked, and an id nobody else owns). Returns the settlement to record, or why it is
 * refused. Why check apart from recording: `resolve --from` checks every line (each GET) before
 * the one transaction that records them all, and a single `resolve` goes the same way.
 */
export async function checkDecision(store: StateStore, client: ServiceClient | undefined, job: PlannedJob, decision: Decision): Promise<Settlement | { refused: string }> {
  const row = store.job(job.key);
  if (!row || row.status !== 'in_doubt') {
    return { refused: `${job.label} (${job.key}) is not in doubt (it is ${row ? stateWord(row.status) : 'not recorded yet'}); only a job in doubt can be resolved` };
  }
  if ('absent' in decision) return { job, decision };
  const attempt = store.lastAttempt(job.key);
  const adapter = adapterFor(job.kind, job.mode);
  const confirmed = await confirmRemote(client as ServiceClient, store, adapter, decision.adopt, attempt?.request ?? row.request, attempt?.id ?? null);
  if ('refused' in confirmed) return { refused: `${decision.adopt} was not adopted for ${job.label} (${job.key}): ${confirmed.refused}` };
  return { job, decision, resource: confirmed.resource };
}

/**
 * Records a checked decision, as a `job:resolved` event with who decided (and `from`, the line of
 * a `--from` file that said it). Inside the caller's transaction (see resolveDoubt):
 *   - `adopt REMOTE_ID`: the job the POST made was found by hand (the service's dashboard, an
 *     export). It takes the state the GET showed, recorded as the tracker records a read: still
 *     under way, `submitted` (the next run tracks and downloads it, paying nothing more); ended,
 *     `done` with its files' links, or `failed` (`rejected`) with the service's reason and cost —
 *     `reelpipe retry` then resubmits it. A kind finished at creation is done with what it returned.
 *   - `absent`: the operator says nothing was created. The job is planned again: the next run
 *     submits it (and pays for it). Said once, and recorded — the operator's word replaces the
 *     evidence a search would give.
 * Returns the row after the change.
 */
export function recordSettlement(store: StateStore, settlement: Settlement, by: string, from?: string): JobRow {
  const { job, decision, resource } = settlement;
  const attempt = store.lastAttempt(job.key);
  const said = { by, ...(from ? { from } : {}) };
  if ('absent' in decision) {
    if (attempt) store.closeAttempt(attempt.id, 'absent', { error: `the operator (${by}) said nothing was created` });
    return store.transition(job.key, 'planned', { creditsReserved: 0, remoteId: null }, 'job:resolved', { decision: 'absent', ...said });
  }
  const adapter = adapterFor(job.kind, job.mode);
  const view = adapter.view(resource as Resource);
  const now = store.clock.now();
  const adopted = { remoteId: decision.adopt, submittedAt: store.job(job.key)?.submittedAt ?? attempt?.intentAt ?? now };
  const event = { type: 'job:resolved' as const, data: { decision: 'adopt', remoteId: decision.adopt, ...said } };
  if (attempt) store.closeAttempt(attempt.id, 'matched', { remoteId: decision.adopt });
  if (view.phase === 'pending') {
    return store.transition(job.key, 'submitted', { ...adopted, remoteStatus: view.remoteStatus, result: resource }, event.type, event.data);
  }
  // A job the service rejected (refused on review) is `rejected`, as one refused at creation is.
  return recordEnd(store, { key: job.key, planned: job, adapter }, endOf(view), { resource: resource as Resource, view, at: now }, { ...event, extra: adopted }).row;
}

/** Checks and records one decision (`reelpipe resolve MANIFEST JOB …`), durably; a refusal is a usage error. */
export async function resolveDoubt(
  store: StateStore,
  client: ServiceClient | undefined,
  job: PlannedJob,
  decision: Decision,
  by: string = decidedBy(),
): Promise<JobRow> {
  const checked = await checkDecision(store, client, job, decision);
  if ('refused' in checked) throw new UsageError(checked.refused);
  return store.durably(() => recordSettlement(store, checked, by));
}
