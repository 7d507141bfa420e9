import type { JobRow } from './job-row.js';
import type { JobStatus } from '../job-status.js';
import type { StateStore } from './job-store.js';

/**
 * Statuses in which a job's record must not be dropped. Why: each is a job that exists at the
 * service (or may), not yet finished: its record is the only link between the money spent and
 * the job being made. Dropped, the job would be paid for again while the first one still runs;
 * the run finishes it, or for a job in doubt `reelpipe doubt` / `resolve` settle it first.
 * A `done` job is finished (only its download is left) and may be forgotten.
 */
export const FORGET_REFUSED: readonly JobStatus[] = ['submitting', 'submitted', 'running', 'in_doubt'];

export type ForgetResult = { forgotten: JobRow; attempts: number; outputs: number } | { refused: JobRow };

/**
 * `reelpipe forget`: drops one job's record (its outputs, items, attempts and job rows) from the
 * store's manifest, after recording `job:forgotten` with what it held (status, remote id, credits),
 * so the event log keeps its history. Its charges are kept, marked forgotten: every total still
 * counts them. The next run plans it again as new — and pays for it again.
 * Refused (nothing changes) while the job is in one of FORGET_REFUSED. Returns undefined for a
 * job the store does not know. The caller holds the manifest's run lock.
 */
export function forgetJob(store: StateStore, key: string, by: Record<string, unknown>): ForgetResult | undefined {
  return store.atomically(() => {
    const job = store.job(key);
    if (!job) return undefined;
    if (FORGET_REFUSED.includes(job.status)) return { refused: job };
    const where = [store.manifest, key] as const;
    const outputs = store.db.prepare('DELETE FROM outputs WHERE manifest = ? AND job_key = ?').run(...where).changes;
    const attempts = store.db.prepare('DELETE FROM attempts WHERE manifest = ? AND job_key = ?').run(...where).changes;
    // Its hook runs go too: a job made again gets its output hooks again, whatever its bytes.
    store.db.prepare('DELETE FROM hook_runs WHERE manifest = ? AND job_key = ?').run(...where);
    store.event('job:forgotten', key, {
      step: job.step,
      kind: job.kind,
      status: job.status,
      remoteId: job.remoteId,
      creditsUsed: job.creditsUsed,
      creditsPrior: job.creditsPrior,
      attempts,
      outputs,
      by,
    });
    store.db.prepare('DELETE FROM job_items WHERE manifest = ? AND job_key = ?').run(...where);
    // Its charges stay, never deleted: what was paid is paid, and every total keeps counting it
    // (shown apart as forgotten spend).
    store.charges.lapse(key, 'forgotten');
    store.db.prepare('DELETE FROM job_results WHERE manifest = ? AND job_key = ?').run(...where);
    store.db.prepare('DELETE FROM jobs WHERE manifest = ? AND key = ?').run(...where);
    return { forgotten: job, attempts, outputs };
  });
}
