/**
 * Times as a log line shows them: ISO 8601 with milliseconds and the zone, so a line read in
 * another zone, or a week later, still says exactly when it happened.
 */

const pad = (n: number, width = 2) => String(Math.trunc(Math.abs(n))).padStart(width, '0');

/**
 * `2026-11-23T03:43:59.123+01:00`, or `…Z` where the zone is UTC. `offsetMinutes` is east of
 * UTC (Central Europe in winter: 60).
 * @default offsetMinutes the local zone's offset at `ms` (the TZ environment variable decides)
 */
export function isoTime(ms: number, offsetMinutes = -new Date(ms).getTimezoneOffset()): string {
  const body = utcIso(ms + offsetMinutes * 60_000).slice(0, 23);
  if (offsetMinutes === 0) return `${body}Z`;
  const sign = offsetMinutes > 0 ? '+' : '-';
  return `${body}${sign}${pad(offsetMinutes / 60)}:${pad(offsetMinutes % 60)}`;
}

const DAY_MS = 86_400_000;
/** The first millisecond of year 10,000: past it (or before 1970, or between milliseconds) Date prints the time. */
const FAST_UNTIL = 253_402_300_800_000;
const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let day = Number.NaN;
let dayText = '';

/**
 * `new Date(ms).toISOString()`: `2026-11-23T02:43:59.123Z`. Why not that call: it costs about a
 * microsecond, and a 10,000-job report prints 60,000 times (results.csv and results.json), a run's
 * log one per line. Here the date part is made once per day and the time from tables: a sixth of it.
 */
export function utcIso(ms: number): string {
  if (!(Number.isInteger(ms) && ms >= 0 && ms < FAST_UNTIL)) return new Date(ms).toISOString();
  const d = Math.floor(ms / DAY_MS);
  if (d !== day) {
    day = d;
    dayText = new Date(d * DAY_MS).toISOString().slice(0, 11);
  }
  const t = ms - d * DAY_MS;
  return `${dayText}${TWO[Math.floor(t / 3_600_000)]}:${TWO[Math.floor(t / 60_000) % 60]}:${TWO[Math.floor(t / 1000) % 60]}.${THREE[t % 1000]}Z`;
}

/** utcIso, or null for a time not known (the report, results files, status and `plan --json` print it as null). */
export const utcIsoOrNull = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : utcIso(ms));

/** `45s`, `3m05s`, `2h04m`: a span as people read it, to the second under an hour. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${pad(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h${pad(minutes % 60)}m`;
}

/** `2h 5m`, `3m 12s`, `4s`: an age for a person. */
export function formatAge(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}
