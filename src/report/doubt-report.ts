import { createHash } from 'node:crypto';
import { RETRY_DEFAULTS } from '../api/index.js';
import { canonicalJson } from '../plan/job-key.js';
import { jobIndex } from '../plan/job-index.js';
import type { Plan } from '../plan/types.js';
import { adapterFor } from '../run/adapters/index.js';
import { getsAttemptWebhook } from '../run/submit/submit-job.js';
import { stateAt } from '../state/index.js';
import { utcIso } from '../util/time-format.js';

/** A request's longest field shown in the text listing; `--json` carries the whole request. */
const SHOWN_FIELD = 160;
/** The client gives up on a call after this long, so a lost POST landed by then if at all. */
const CALL_BOUND_MS = RETRY_DEFAULTS.maxElapsedMs;

/** One job in doubt, with what an operator needs to settle it. */
export interface DoubtEntry {
  key: string;
  label: string;
  step: string;
  kind: string;
  origin: string | null;
  /** Why it is in doubt (the lost answer, the error, why it is held). */
  reason: string;
  /** When the creating request was sent, and when — if it made anything — it did so at the latest. */
  window: { from: string; to: string } | null;
  /** sha256 (12 hex) of what was sent, webhook address left out: a body to look for. */
  fingerprint: string;
  /** What the service was asked (the body sent, webhook address left out). */
  asked: Record<string, unknown>;
  /** A remote id a webhook delivery to this attempt named, not yet confirmed. */
  deliveredId: string | null;
  /** How it can be settled, most certain first. */
  ways: string[];
}

/**
 * Every job of `plan` held in doubt in the state at `dbPath`, read-only (no lock): `reelpipe
 * doubt`. Each entry gives the attempt's time window and body — what to look for in the service's
 * own records — and the ways to settle it.
 */
export async function buildDoubtReport(plan: Plan, dbPath: string, manifestShown: string): Promise<DoubtEntry[]> {
  const entries: DoubtEntry[] = [];
  const labels = jobIndex(plan);
  for (const { row, attempt } of await stateAt(dbPath).inDoubt(plan.manifestId)) {
    const job = labels.get(row.key);
    const { webhook_url: _hook, ...asked } = attempt?.request ?? row.request;
    const label = job?.label ?? row.key;
    entries.push({
      key: row.key,
      label,
      step: row.step,
      kind: row.kind,
      origin: job?.origin ?? null,
      reason: row.doubtReason ?? 'no reason recorded',
      window: attempt ? { from: utcIso(attempt.intentAt), to: utcIso(attempt.answeredAt ?? attempt.intentAt + CALL_BOUND_MS) } : null,
      fingerprint: createHash('sha256').update(canonicalJson(asked)).digest('hex').slice(0, 12),
      asked,
      deliveredId: attempt?.deliveredId ?? null,
      ways: waysFor(row.kind, job?.mode, Boolean(attempt?.hookToken), manifestShown, label),
    });
  }
  return entries;
}

/** What the operator can do about a job of this kind held in doubt, the surest way first. */
export function waysFor(kind: string, mode: Parameters<typeof adapterFor>[1], listened: boolean, manifest: string, label: string): string[] {
  const adapter = adapterFor(kind as Parameters<typeof adapterFor>[0], mode);
  const ways: string[] = [];
  if (adapter.reconcile !== 'none') ways.push(`the next run searches the service for it (${kind} jobs can be listed) and adopts it or submits it again`);
  if (listened && getsAttemptWebhook(kind, mode)) ways.push('a run listening for webhooks at the same public address adopts it when the service delivers to this attempt');
  const job = JSON.stringify(label);
  ways.push(`found at the service (created in the window, with this body): reelpipe resolve ${manifest} ${job} --adopt REMOTE_ID`);
  ways.push(`certain nothing was created: reelpipe resolve ${manifest} ${job} --absent (the next run submits it, and pays for it)`);
  return ways;
}

/** The human form: one block per job. */
export function renderDoubtReport(entries: readonly DoubtEntry[], manifest: string): string {
  if (entries.length === 0) return `${manifest}: no job is in doubt\n`;
  const lines = [`${manifest}: ${entries.length} job${entries.length === 1 ? '' : 's'} in doubt — each may exist, and be paid for, at the service`];
  for (const entry of entries) {
    lines.push('', `${entry.label}  (${entry.key}, ${entry.kind}${entry.origin ? `, ${entry.origin}` : ''})`);
    lines.push(`  why: ${entry.reason}`);
    if (entry.window) lines.push(`  sent: ${entry.window.from}; created, if at all, by ${entry.window.to}`);
    if (entry.deliveredId) lines.push(`  a webhook named: ${entry.deliveredId} (not yet confirmed)`);
    lines.push(`  body ${entry.fingerprint}:`);
    for (const [field, value] of Object.entries(entry.asked)) lines.push(`    ${field}: ${shown(value)}`);
    lines.push('  settle it:', ...entry.ways.map((way) => `    - ${way}`));
  }
  return `${lines.join('\n')}\n`;
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.replace(/\s+/g, ' ');
  return line.length > SHOWN_FIELD ? `${line.slice(0, SHOWN_FIELD - 1)}…` : line;
}

