import type { RunEvents } from '../run/run-events.js';

/** Words a person reads for each status change. */
const SAYS: Record<string, string> = {
  planned: 'planned again',
  submitting: 'submitting',
  submitted: 'submitted',
  running: 'running',
  done: 'finished',
  downloaded: 'downloaded',
  failed: 'FAILED',
  rejected: 'REJECTED',
  in_doubt: 'IN DOUBT',
};

const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/**
 * Live progress for a person or a cron log: one line per job status change on stderr,
 * `HH:MM:SS  status  step  key  (remote id)  detail`, and one per run-level stop.
 */
export function printProgress(events: RunEvents, write: (line: string) => void, now: () => number = Date.now): void {
  events.on('job:status', (e) => {
    const id = e.remoteId ? `  ${e.remoteId}` : '';
    const detail = e.detail ? `  ${e.detail}` : '';
    write(`${clockTime(now())}  ${(SAYS[e.status] ?? e.status).padEnd(12)} ${e.key}${id}${detail}\n`);
  });
  events.on('job:download-failed', (e) => write(`${clockTime(now())}  download failed  ${e.key}  ${e.message}\n`));
  events.on('run:stopping', (e) => write(`${clockTime(now())}  stopping: ${e.message}\n`));
  events.on('run:note', (e) => write(`${clockTime(now())}  ${e.message}\n`));
}
