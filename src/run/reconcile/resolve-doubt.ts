import { userInfo, hostname } from 'node:os';
import type { ServiceClient } from '../../api/index.js';
import { UsageError } from '../../errors.js';
import type { PlannedJob } from '../../plan/types.js';
import type { JobRow, StateStore } from '../../state/index.js';
import { stateWord } from '../../state/vocabulary.js';
import { adapterFor } from '../adapters/index.js';
import { confirmRemote } from './confirm-remote.js';

/** The operator's word on a job in doubt. */
export type Decision = { adopt: string } | { absent: true };

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
 * Settles a job held in doubt on the operator's word (`reelpipe resolve`), recorded as a
 * `job:resolved` event with who and when:
 *   - `adopt REMOTE_ID`: the job the POST made was found by hand (the service's dashboard, an
 *     export). It is adopted only if a GET confirms it (confirm-remote.ts: the kind, what was
 *     asked, and an id nobody else owns); the next run then tracks and downloads it, paying
 *     nothing more. A kind finished at creation is done with what the GET returned.
 *   - `absent`: the operator says nothing was created. The job is planned again: the next run
 *     submits it (and pays for it). Said once, and recorded — the operator's word replaces the
 *     evidence a search would give.
 * Returns the row after the change.
 */
export async function resolveDoubt(
  store: StateStore,
  client: ServiceClient | undefined,
  job: PlannedJob,
  decision: Decision,
  by: string = decidedBy(),
): Promise<JobRow> {
  const row = store.job(job.key);
  if (!row || row.status !== 'in_doubt') {
    throw new UsageError(`${job.label} (${job.key}) is not in doubt (it is ${row ? stateWord(row.status) : 'not recorded yet'}); only a job in doubt can be resolved`);
  }
  const attempt = store.lastAttempt(job.key);
  if ('absent' in decision) {
    return store.durably(() => {
      if (attempt) store.closeAttempt(attempt.id, 'absent', { error: `the operator (${by}) said nothing was created` });
      return store.transition(job.key, 'planned', { creditsReserved: 0, remoteId: null }, 'job:resolved', { decision: 'absent', by });
    });
  }
  const adapter = adapterFor(job.kind, job.mode);
  const confirmed = await confirmRemote(client as ServiceClient, store, adapter, decision.adopt, attempt?.request ?? row.request, attempt?.id ?? null);
  if ('refused' in confirmed) throw new UsageError(`${decision.adopt} was not adopted for ${job.label} (${job.key}): ${confirmed.refused}`);
  const view = adapter.view(confirmed.resource);
  const finished = adapter.mode === 'instant';
  const creditsUsed = finished ? (view.creditsUsed ?? adapter.fixedCredits ?? null) : null;
  return store.durably(() => {
    if (attempt) store.closeAttempt(attempt.id, 'matched', { remoteId: decision.adopt });
    return store.transition(job.key, finished ? 'done' : 'submitted', {
      remoteId: decision.adopt,
      remoteStatus: view.remoteStatus,
      result: confirmed.resource,
      submittedAt: row.submittedAt ?? attempt?.intentAt ?? store.clock.now(),
      ...(finished ? { creditsUsed, finishedAt: store.clock.now(), ...(creditsUsed === null ? {} : { creditsReserved: 0 }) } : {}),
    }, 'job:resolved', { decision: 'adopt', remoteId: decision.adopt, by });
  });
}
