// Figures from what the separate sandbox saw: its request counters and its jobs' life cycles.
// Pure functions: the benchmarks fetch /__sandbox/stats and /__sandbox/jobs and hand them here.

/** The statuses a job ends in (no status follows them). */
const FINAL = new Set(['done', 'failed', 'rejected']);

/** The middle value; the mean of the two middle ones for an even count; NaN for none. */
export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Smallest, median and largest of some runs' values (non-finite values are left out). */
export function summarise(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  return {
    min: finite.length ? Math.min(...finite) : NaN,
    median: median(finite),
    max: finite.length ? Math.max(...finite) : NaN,
    runs: finite.length,
  };
}

/**
 * What a route counter counts: `api` (the service's API, under /api/ and /sse/), `downloads`
 * (output files and library media, under /cdn/ and /media/), `introspection` (/__sandbox/, the
 * bench's own reads, never a client's) or `other`.
 */
export function routeClass(route) {
  const path = route.slice(route.indexOf(' ') + 1);
  if (path.startsWith('/api/') || path.startsWith('/sse/')) return 'api';
  if (path.startsWith('/cdn/') || path.startsWith('/media/')) return 'downloads';
  if (path.startsWith('/__sandbox/')) return 'introspection';
  return 'other';
}

/** Requests between two /__sandbox/stats snapshots (`before` may be undefined: a fresh sandbox). */
export function requestCounts(before, after) {
  const counts = { api: 0, downloads: 0, other: 0, byRoute: {} };
  for (const [route, total] of Object.entries(after.requests)) {
    const n = total - (before?.requests[route] ?? 0);
    const kind = routeClass(route);
    if (n === 0 || kind === 'introspection') continue;
    counts.byRoute[route] = n;
    counts[kind] += n;
  }
  return counts;
}

/** When a job reached the status it ended in (ms since the epoch), or undefined while it has not. */
function finishedAt(job) {
  const last = job.history.at(-1);
  return last && FINAL.has(last.status) ? Date.parse(last.at) : undefined;
}

/**
 * Each job's whole life in the service (its creation to its final status, dispatch and queue
 * included), and the ideal makespan of a client keeping `capacity` jobs in flight: every slot
 * runs ceil(jobs ÷ capacity) lives back to back, with no gap between one job's end and the next
 * one's creation. Why the median life: every job of a bench has the same script length, so lives
 * differ only by the sandbox's timer granularity; the median is the life the service gives a job.
 */
export function serviceTiming(jobs, capacity) {
  const created = jobs.map((job) => Date.parse(job.created_at));
  const ends = jobs.map(finishedAt);
  const lives = ends.flatMap((end, i) => (end === undefined ? [] : [end - created[i]]));
  const lifeMs = median(lives);
  const finishedEnds = ends.filter((end) => end !== undefined);
  return {
    jobs: jobs.length,
    unfinished: jobs.length - lives.length,
    failed: jobs.filter((job) => job.status === 'failed' || job.status === 'rejected').length,
    lifeMs,
    idealMs: Math.ceil(jobs.length / capacity) * lifeMs,
    firstCreatedMs: jobs.length ? Math.min(...created) : NaN,
    lastFinishedMs: finishedEnds.length ? Math.max(...finishedEnds) : NaN,
  };
}
