import type { JobOutcome } from './drive-job.js';
import { stopOnLocalFault } from './local-fault-stop.js';
import type { RunContext } from './run-context.js';

/**
 * Records an error nobody expected on the one job it came from, so it ends that job alone and
 * never the run (the other jobs' POSTs may be on the wire, already paid for).
 *
 * Policy, by where the job stood when it threw:
 * - `submitting`: its intent is committed and its POST may have reached the service, so it is
 *   in doubt, with the error as the reason; never resent blindly (the next run reconciles it);
 * - `in_doubt`: already recorded (e.g. the answer's remote id was kept before the error);
 * - `planned`: nothing was sent; it stays planned and its reservation goes back;
 * - in flight or finished: its remote id is committed; it stays as it is and the next run
 *   tracks or downloads it.
 * Always `unfinished`: the run exits 4 and a later run picks the job up.
 */
export async function failAlone(ctx: RunContext, key: string, error: unknown): Promise<JobOutcome> {
  const message = `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  // A full disk or an unwritable database is the machine's fault, not this job's: the run stops.
  if (stopOnLocalFault(ctx, error)) return 'unfinished';
  try {
    const held = await ctx.store.write({
      key,
      onlyFrom: ['submitting'],
      attempt: { id: 'open intent', state: 'in_doubt', error: message },
      move: { to: 'in_doubt', change: { doubtReason: message }, type: 'job:in-doubt', data: { message } },
      durable: true,
    });
    const row = held.row;
    if (held.moved) {
      ctx.events.emit('job:status', { key, step: row.step, kind: row.kind, status: row.status, detail: message });
      return 'unfinished';
    }
    if (row.status === 'planned') ctx.ledger.release(key);
    await ctx.store.note('job:error', key, { status: row.status, message });
    ctx.events.emit('job:status', { key, step: row.step, kind: row.kind, status: row.status, remoteId: row.remoteId, detail: message });
  } catch {
    // The state database itself failed: nothing more can be recorded; the next run's start-up
    // recovery (a `submitting` job becomes in doubt) covers this job.
  }
  return 'unfinished';
}
