import type { Resource } from '../adapters/index.js';

/**
 * Fields that never decide whether a listed job is the one an intent created. webhook_url: a
 * run's receiver address changes between runs; the service may also not echo it.
 */
const IGNORED = new Set(['webhook_url']);

/**
 * Whether `resource` could be the job `request` created: every field the request sent must come
 * back equal (objects compared as subsets, since the service fills in defaults such as caption
 * settings). A field the service does not echo back counts as a mismatch: when in doubt, no match,
 * and a job with no match is never resubmitted unless its absence is proven.
 */
export function matchesIntent(request: Record<string, unknown>, resource: Resource): boolean {
  let compared = 0;
  for (const [field, sent] of Object.entries(request)) {
    if (IGNORED.has(field) || sent === undefined || sent === null) continue;
    if (!subsetEqual(sent, resource[field])) return false;
    compared++;
  }
  return compared > 0;
}

function subsetEqual(sent: unknown, got: unknown): boolean {
  if (sent === null || sent === undefined) return got === null || got === undefined;
  if (Array.isArray(sent)) {
    return Array.isArray(got) && got.length === sent.length && sent.every((item, i) => subsetEqual(item, got[i]));
  }
  if (typeof sent === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return false;
    return Object.entries(sent as Record<string, unknown>).every(
      ([key, value]) => IGNORED.has(key) || value === undefined || value === null || subsetEqual(value, (got as Record<string, unknown>)[key]),
    );
  }
  // A number may come back as a string (or the reverse) through form-encoded paths.
  return sent === got || String(sent) === String(got);
}
