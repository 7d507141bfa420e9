// The exit code the README's table gives for a final state database, worked out here from the
// rows alone — apart from the runner's own code (src/run/standing.ts, outcome.ts) — so the soak
// can check the runner's last exit code against it.

/**
 * Kinds a later run can settle by itself when their create answer was lost: it searches the
 * service's lists (lipsync by time window, ad clones by listing all) or safely sends again
 * (link updates, avatar deletions, music look-ups). README: every other kind needs a person.
 */
export const SEARCHABLE_KINDS = new Set(['lipsync_v2', 'ad_clone', 'link_update', 'persona_delete', 'music']);

/** Statuses the next run moves on by itself: still at the service, or finished but not on disk. */
const MOVING = new Set(['submitting', 'submitted', 'running', 'done']);

/**
 * Where each planned job stands: `open` (running again moves it on), `undecided` (in doubt, only
 * a person can settle), `failed` (failed, rejected or partly failed), `finished` (downloaded). A planned job with
 * no row counts as not submitted (open). The soak's manifest has no dependencies between steps,
 * so no planned job is blocked by a failed one.
 */
export function standingFromRows(plannedKeys, rows) {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const standing = { finished: [], failed: [], undecided: [], open: { notSubmitted: [], moving: [], toSearch: [] } };
  for (const key of plannedKeys) {
    const row = byKey.get(key);
    const status = row?.status ?? 'planned';
    if (status === 'downloaded') standing.finished.push(key);
    // A partly failed job (some of its HTML ads) needs a person as a failed one does: exit 1.
    else if (status === 'failed' || status === 'rejected' || status === 'partly_failed') standing.failed.push(key);
    else if (status === 'planned') standing.open.notSubmitted.push(key);
    else if (MOVING.has(status)) standing.open.moving.push(key);
    else if (status === 'in_doubt') (row.remote_id || SEARCHABLE_KINDS.has(row.kind) ? standing.open.toSearch : standing.undecided).push(key);
    else throw new Error(`job ${key}: unknown status ${status}`);
  }
  return standing;
}

export const openCount = (standing) => standing.open.notSubmitted.length + standing.open.moving.length + standing.open.toSearch.length;

/**
 * The codes README "Exit codes" allows for a final database: while any job can still move on,
 * 4 — or, under a cap, 3 (the budget stopped the run: which of the two is a fact of the run, not
 * of the database, so both are allowed there); then 5 (decisions needed); then 1 (failures);
 * else 0.
 */
export function expectedExitCodes(standing, { capped }) {
  if (openCount(standing) > 0) return capped ? [4, 3] : [4];
  if (standing.undecided.length > 0) return [5];
  if (standing.failed.length > 0) return [1];
  return [0];
}
