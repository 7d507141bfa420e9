// The promises the soak checks, each judged from the evidence (evidence.js) into one row:
// { name, verdict: 'PASS' | 'FAIL' | 'SKIP', figures, detail }. A failing row's detail names the
// jobs, ids or files at fault, so a failure can be looked up in the kept workspace.
import path from 'node:path';
import { canonicalBody, digestOf, listFiles } from './evidence.js';
import { SEARCHABLE_KINDS, expectedExitCodes, openCount, standingFromRows } from './expected-exit.js';

const round = (n) => Math.round(n * 100) / 100;
const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
const first = (list, n = 20) => list.slice(0, n);

/** Every invariant, in the order they are printed. */
export function judge(evidence) {
  const standing = standingFromRows(evidence.plan.keys, evidence.state.rows);
  return [
    jobsLost(evidence, standing),
    duplicates(evidence),
    credits(evidence),
    outputs(evidence),
    budget(evidence),
    exitCode(evidence, standing),
    ...(evidence.accountSlots ? [accountSlots(evidence)] : []),
  ];
}

/** With several hosts: the account's slot limit held across every member (the most jobs alive at the service at once, sampled). */
function accountSlots({ accountSlots: limit, log }) {
  const peak = log.peakAlive ?? 0;
  return { name: 'account concurrency never exceeded', verdict: verdict(peak <= limit), figures: `limit ${limit}: at most ${peak} jobs alive at the service at once (its own count, over every start)`, detail: { limit, peak } };
}

/** Every planned job has a row, no row is unplanned, and none is left where a run could move it on. */
function jobsLost({ plan, state, cap, log }, standing) {
  const known = new Set(state.rows.map((r) => r.key));
  const planned = new Set(plan.keys);
  const missing = plan.keys.filter((k) => !known.has(k));
  const extra = state.rows.filter((r) => !planned.has(r.key)).map((r) => r.key);
  const open = openCount(standing);
  // Under a cap, jobs the cap holds back are not lost: exit 3 says so. A job already sent is
  // always read to its end, budget or not, so none may be left at the service.
  const heldByCap = cap !== null && log.finalCode === 3 && standing.open.moving.length === 0;
  const openKeys = [...standing.open.notSubmitted, ...standing.open.moving, ...standing.open.toSearch];
  return {
    name: 'jobs lost',
    verdict: verdict(missing.length === 0 && extra.length === 0 && (open === 0 || heldByCap)),
    figures: `${plan.keys.length} planned, ${state.rows.length} rows, ${missing.length} missing, ${open} left open` +
      `${open ? ` (${standing.open.notSubmitted.length} not sent${heldByCap ? ', held by the cap' : ''}, ${standing.open.moving.length} at the service or to download, ${standing.open.toSearch.length} to search)` : ''}`,
    detail: { missing: first(missing), extra: first(extra), open: first(openKeys) },
  };
}

/** The service never created the same job twice (identical kind, path and body). */
function duplicates({ stats }) {
  const total = stats.duplicates?.total ?? 0;
  return {
    name: 'duplicate creations',
    verdict: verdict(total === 0),
    figures: `${total} (service's count of identical creations)${total ? ` by kind ${JSON.stringify(stats.duplicates.byKind)}` : ''}`,
    detail: stats.duplicates,
  };
}

/**
 * Money agrees id by id: for each job, what the service charged for every id the state knows
 * (the job's and its attempts') equals what the state counts (credits_used + credits_prior).
 * Service jobs known to no row must each be the lost answer of a job still held in doubt (same
 * kind, same request); anything else is a creation the state lost track of.
 */
function credits({ state, service, harnessIds }) {
  const { owner, shared, unknownIds, mismatches, stateTotal, trackedTotal } = chargesPerJob(state, service);
  const untracked = service.jobs.filter((job) => !owner.has(job.id) && !harnessIds.has(job.id));
  const { explained, unexplained } = explainUntracked(untracked, state);
  const untrackedCredits = round(untracked.reduce((sum, job) => sum + job.credits_used, 0));
  const ledger = round(service.stats.credits.charged - service.stats.credits.refunded);
  const allJobs = round(service.jobs.reduce((sum, job) => sum + job.credits_used, 0));
  const byKind = countBy(untracked, (job) => job.kind);
  const ok = mismatches.length === 0 && unknownIds.length === 0 && shared.length === 0 && unexplained.length === 0 &&
    Math.abs(trackedTotal - stateTotal) < 1e-6 && Math.abs(ledger - allJobs) < 1e-6;
  return {
    name: 'credits: state vs charged',
    verdict: verdict(ok),
    figures: `tracked ids ${owner.size}: service charged ${round(trackedTotal)}, state counts ${round(stateTotal)}, ${mismatches.length} jobs differ` +
      `; untracked ${untracked.length} (${untrackedCredits} credits${untracked.length ? `, ${Object.entries(byKind).map(([k, n]) => `${k} ${n}`).join(', ')}` : ''}; ` +
      `${explained} the lost answer of a job held in doubt, ${unexplained.length} unexplained); service ledger ${ledger} = its jobs' ${allJobs}`,
    detail: { mismatches: first(mismatches), unknownIds: first(unknownIds), shared: first(shared), unexplained: first(unexplained), untrackedByKind: byKind },
  };
}

/**
 * Job by job, the service's charges for every id the state knows for it against what the state
 * counts; also ids the service does not know, and ids two jobs both claim.
 */
function chargesPerJob(state, service) {
  const byId = new Map(service.jobs.map((job) => [job.id, job]));
  const owner = new Map();
  const out = { owner, shared: [], unknownIds: [], mismatches: [], stateTotal: 0, trackedTotal: 0 };
  const idsOf = new Map(state.rows.map((r) => [r.key, new Set(r.remote_id ? [r.remote_id] : [])]));
  for (const a of state.attempts) if (a.remote_id) idsOf.get(a.job_key)?.add(a.remote_id);
  for (const row of state.rows) {
    const counted = (row.credits_used ?? 0) + row.credits_prior;
    let charged = 0;
    for (const id of idsOf.get(row.key) ?? []) {
      if (owner.has(id) && owner.get(id) !== row.key) out.shared.push(id);
      owner.set(id, row.key);
      const job = byId.get(id);
      if (!job) out.unknownIds.push(`${row.key}: ${id}`);
      else charged += job.credits_used;
    }
    out.stateTotal += counted;
    out.trackedTotal += charged;
    if (Math.abs(charged - counted) > 1e-6) out.mismatches.push(`${row.key} (${row.kind}, ${row.status}): state ${counted}, service ${charged}`);
  }
  return out;
}

/** Pairs each untracked service job with an in-doubt job of the same kind and request (each used once). */
function explainUntracked(untracked, state) {
  const held = new Map();
  const rows = new Map(state.rows.map((r) => [r.key, r]));
  for (const a of state.attempts) {
    const row = rows.get(a.job_key);
    // Only an attempt that may have been sent and got no answer can have made an unseen job.
    if (!row || row.status !== 'in_doubt' || row.remote_id || a.remote_id || !['intent', 'in_doubt'].includes(a.state)) continue;
    const slot = `${row.kind} ${canonicalBody(a.request)}`;
    held.set(slot, (held.get(slot) ?? 0) + 1);
  }
  let explained = 0;
  const unexplained = [];
  for (const job of untracked) {
    const slot = `${job.kind} ${canonicalBody(job.body)}`;
    const left = held.get(slot) ?? 0;
    if (left > 0) {
      held.set(slot, left - 1);
      explained++;
    } else unexplained.push(`${job.kind} ${job.id} (${job.status}, ${job.credits_used} credits)`);
  }
  return { explained, unexplained };
}

/** Every downloaded job's files (a partly failed one's made files too) are on disk with the checksum and size the state recorded. */
function outputs({ state, outputsDir }) {
  const downloaded = state.rows.filter((r) => r.status === 'downloaded' || r.status === 'partly_failed');
  const byJob = new Map();
  for (const o of state.outputs) byJob.set(o.job_key, [...(byJob.get(o.job_key) ?? []), o]);
  const noFiles = [];
  const bad = [];
  let verified = 0;
  for (const row of downloaded) {
    const files = byJob.get(row.key) ?? [];
    if (files.length === 0) noFiles.push(row.key);
    for (const file of files) {
      const seen = file.path ? digestOf(path.resolve(outputsDir, file.path)) : undefined;
      if (seen && seen.sha256 === file.sha256 && seen.bytes === file.bytes) verified++;
      else bad.push(`${row.key}: ${file.path ?? '(no path)'} ${seen ? `sha256 ${seen.sha256.slice(0, 12)} (${seen.bytes} B) ≠ recorded ${String(file.sha256).slice(0, 12)} (${file.bytes} B)` : 'missing'}`);
    }
  }
  const recorded = new Set(state.outputs.filter((o) => o.path).map((o) => path.normalize(o.path)));
  // reelpipe's own files in the outputs folder: its owner record and the run's report (report/).
  // reelpipe's own records in the folder: its owner (the state) and the run its members share.
  const onDisk = listFiles(outputsDir).filter((f) => f !== '.reelpipe-state.json' && !f.startsWith('.reelpipe-run.') && !f.startsWith('report/'));
  const parts = onDisk.filter((f) => f.endsWith('.part'));
  const unrecorded = onDisk.filter((f) => !f.endsWith('.part') && !recorded.has(path.normalize(f)));
  return {
    name: 'outputs verified by checksum',
    verdict: verdict(noFiles.length === 0 && bad.length === 0 && unrecorded.length === 0),
    figures: `${verified} files of ${downloaded.length} downloaded jobs verified, ${bad.length} bad, ${noFiles.length} jobs without files, ` +
      `${unrecorded.length} files on disk the state does not know${parts.length ? `, ${parts.length} .part leftovers` : ''}`,
    detail: { bad: first(bad), noFiles: first(noFiles), unrecorded: first(unrecorded), parts: first(parts) },
  };
}

/**
 * Under --max-credits: what the state counts (spent, plus what jobs in flight or in doubt hold)
 * and what the service charged (at the end and at its highest, sampled after every run) are
 * within the cap. The state's figure follows the README's rule, written out here again.
 */
function budget({ state, service, cap, log }) {
  let spent = 0;
  let held = 0;
  for (const row of state.rows) {
    spent += row.credits_prior;
    if (['done', 'downloaded', 'partly_failed', 'failed'].includes(row.status)) spent += row.credits_used ?? row.credits_reserved;
    else if (row.status === 'rejected') spent += row.credits_used ?? 0;
    else if (row.status !== 'planned') held += row.credits_reserved;
  }
  const charged = round(service.stats.credits.charged - service.stats.credits.refunded);
  const figures = `state spent ${round(spent)} + held ${round(held)}; service charged ${charged} (peak ${round(log.peakCharged)})`;
  if (cap === null) return { name: 'budget never exceeded', verdict: 'SKIP', figures: `no cap (--max-credits); ${figures}`, detail: {} };
  const ok = spent + held <= cap + 1e-6 && charged <= cap + 1e-6 && log.peakCharged <= cap + 1e-6;
  return { name: 'budget never exceeded', verdict: verdict(ok), figures: `cap ${cap}: ${figures}`, detail: { spent: round(spent), held: round(held), charged, peak: log.peakCharged } };
}

/** The last run's exit code is one the README's table gives for the final database. */
function exitCode({ cap, log }, standing) {
  const expected = expectedExitCodes(standing, { capped: cap !== null });
  return {
    name: 'final exit code as documented',
    verdict: verdict(expected.includes(log.finalCode)),
    figures: `last run exited ${log.finalCode ?? 'by a signal'}, the README's table gives ${expected.join(' or ')} ` +
      `(${standing.finished.length} finished, ${standing.failed.length} failed, ${standing.undecided.length} in doubt for a person, ${openCount(standing)} open)`,
    detail: { expected, actual: log.finalCode, undecided: first(standing.undecided) },
  };
}

/** How many items per key. */
export function countBy(items, keyOf) {
  const out = {};
  for (const item of items) out[keyOf(item)] = (out[keyOf(item)] ?? 0) + 1;
  return out;
}

/**
 * Of the jobs held in doubt for a person (no id, a kind nobody can search), how many exist at the
 * service (their create answer was lost) and how many never reached it (the run died before the
 * request left). Not an invariant — both are allowed — but the second number is work a person
 * is asked to settle that a tighter runner would not leave.
 */
export function doubtSummary({ state, service }) {
  const rows = new Map(state.rows.map((r) => [r.key, r]));
  const known = new Set([...state.rows.map((r) => r.remote_id), ...state.attempts.map((a) => a.remote_id)].filter(Boolean));
  const atService = new Set(service.jobs.filter((job) => !known.has(job.id)).map((job) => `${job.kind} ${canonicalBody(job.body)}`));
  const held = state.rows.filter((r) => r.status === 'in_doubt' && !r.remote_id && !SEARCHABLE_KINDS.has(r.kind));
  const exist = held.filter((row) => state.attempts.some((a) => a.job_key === row.key && atService.has(`${rows.get(a.job_key).kind} ${canonicalBody(a.request)}`)));
  return { held: held.length, exist: exist.length, neverSent: held.length - exist.length, byKind: countBy(held, (r) => r.kind) };
}
