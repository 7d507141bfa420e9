import type { StopState } from './run-context.js';
import type { RunEvents } from './run-events.js';

/**
 * `--halt-after N`: counts the jobs that fail or are rejected in this run, and at the Nth stops
 * submitting (reason `halt-after`, like a budget stop it lets what is in flight finish).
 *
 * Policy, why only submitting stops: a job already sent is paid for (or may be); tracking and
 * downloading it costs nothing more, and dropping it would waste that money. Why count this run's
 * failures only: jobs that failed in an earlier run are known already; the limit is there to stop
 * a run that is failing now (a bad input column, a service refusing a whole kind) from sending
 * every remaining job into the same failure. Each job counts once. Returns the unsubscriber.
 */
export function watchHaltAfter(events: RunEvents, stop: StopState, limit: number | null): () => void {
  if (limit === null) return () => undefined;
  const failed = new Set<string>();
  const listener = (e: { key: string; status: string }) => {
    if (e.status !== 'failed' && e.status !== 'rejected') return;
    failed.add(e.key);
    if (failed.size < limit) return;
    const message = `--halt-after ${limit}: ${failed.size} job${failed.size === 1 ? '' : 's'} failed in this run, so submitting stopped (jobs already sent are finished)`;
    if (stop.stop('halt-after', message)) events.emit('run:stopping', { reason: 'halt-after', message });
  };
  events.on('job:status', listener);
  return () => events.off('job:status', listener);
}
