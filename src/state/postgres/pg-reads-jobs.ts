import { hookRunOf, hookRunsByJob, type HookRunRow, type RawHookRun } from '../hook-run-rows.js';
import type { AttemptRow, JobRow } from '../job-row.js';
import type { StateIdentity } from '../outputs-owner.js';
import { JOB_ROWS, toAttempt, toJobRow, type RawJobRow } from '../sqlite/job-row.js';
import { stateIdentityOf } from '../state-identity.js';
import type { Tx } from './pg-connection.js';

/** The reader's reads of jobs on PostgreSQL that are not facts: statuses, doubt, hooks, and the state's identity. */

/** The identity the state holds (outputs-owner.ts), its location shown without a password, and how many jobs of `manifest` it knows. */
export async function readPgIdentity(tx: Tx, shown: string, manifest: string): Promise<StateIdentity> {
  const meta = await tx.query<{ key: string; value: string }>('SELECT key, value FROM meta');
  const [jobs] = await tx.query<{ known: number }>('SELECT count(*) AS known FROM jobs WHERE manifest = $1', [manifest]);
  return stateIdentityOf(shown, new Map(meta.map((row) => [row.key, row.value])), jobs?.known ?? 0);
}

export async function readPgJobStatuses(tx: Tx, manifest: string): Promise<Map<string, string>> {
  const rows = await tx.query<{ key: string; status: string }>('SELECT key, status FROM jobs WHERE manifest = $1', [manifest]);
  return new Map(rows.map((row) => [row.key, row.status]));
}

/** The manifest's jobs in doubt, by key, each with its last attempt. */
export async function readPgInDoubt(tx: Tx, manifest: string): Promise<{ row: JobRow; attempt: AttemptRow | undefined }[]> {
  const rows = (await tx.query<RawJobRow>(`${JOB_ROWS} WHERE manifest = $1 AND status = 'in_doubt' ORDER BY key COLLATE "C"`, [manifest])).map(toJobRow);
  if (rows.length === 0) return [];
  const attempts = await tx.query(`SELECT DISTINCT ON (job_key) * FROM attempts WHERE manifest = $1 AND job_key = ANY($2::text[])
    ORDER BY job_key, id DESC`, [manifest, rows.map((row) => row.key)]);
  const last = new Map(attempts.map((raw) => [raw.job_key as string, toAttempt(raw)]));
  return rows.map((row) => ({ row, attempt: last.get(row.key) }));
}

/** Every job's newest on_output rows (by output) and the manifest's newest on_finish. */
export async function readPgHookRuns(tx: Tx, manifest: string): Promise<{ byJob: Map<string, HookRunRow[]>; lastFinish: HookRunRow | null }> {
  const latest = await tx.query<RawHookRun>(`SELECT * FROM hook_runs WHERE id IN (
    SELECT max(id) FROM hook_runs WHERE manifest = $1 AND hook = 'on_output' GROUP BY job_key, output_idx)
    ORDER BY job_key COLLATE "C", output_idx`, [manifest]);
  const [finish] = await tx.query<RawHookRun>("SELECT * FROM hook_runs WHERE manifest = $1 AND hook = 'on_finish' ORDER BY id DESC LIMIT 1", [manifest]);
  return { byJob: hookRunsByJob(latest), lastFinish: finish ? hookRunOf(finish) : null };
}
