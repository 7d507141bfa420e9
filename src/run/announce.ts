import type { JobRow } from '../state/index.js';
import type { RunContext } from './run-context.js';

/** Tells the run's listeners (progress, tests) that a job changed status; every room announces through here. */
export function announce(ctx: RunContext, row: JobRow, detail?: string): void {
  ctx.events.emit('job:status', {
    key: row.key,
    step: row.step,
    kind: row.kind,
    status: row.status,
    remoteId: row.remoteId,
    detail,
    creditsUsed: row.creditsUsed,
    creditsPrior: row.creditsPrior,
    submittedAt: row.submittedAt,
    finishedAt: row.finishedAt,
  });
}
