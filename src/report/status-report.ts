import { resolve } from 'node:path';
import type { Plan } from '../plan/types.js';
import { openStateDb, openStateDbReadOnly, SCHEMA_VERSION, StateStore } from '../state/index.js';
import { formatCredits } from './summary.js';

/** One job as `status` shows it. `new` when the state database has never seen its key. */
export interface JobStatusLine {
  key: string;
  step: string;
  kind: string;
  status: string;
  remoteId: string | null;
  creditsEstimated: number | null;
  creditsUsed: number | null;
  outputs: string[];
  failedReason: string | null;
  /** Why the job is held in doubt (null unless in doubt). */
  doubtReason: string | null;
}

export interface StatusReport {
  manifest: string;
  stateDb: string;
  steps: { id: string; kind: string; counts: Record<string, number>; creditsEstimated: number; creditsUsed: number }[];
  totals: { jobs: number; counts: Record<string, number>; creditsEstimated: number; creditsUsed: number };
  jobs: JobStatusLine[];
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Reads (never writes, never locks) the state of every job of `plan`. */
export function buildStatusReport(plan: Plan, dbPath: string): StatusReport {
  const db = openCurrent(dbPath);
  const store = db && new StateStore(db).useManifest(plan.manifestPath);
  try {
    const jobs: JobStatusLine[] = plan.jobs.map((job) => {
      const row = store?.job(job.key);
      return {
        key: job.key,
        step: job.step,
        kind: job.kind,
        status: row?.status ?? 'new',
        remoteId: row?.remoteId ?? null,
        creditsEstimated: job.credits?.expected ?? null,
        creditsUsed: row ? round((row.creditsUsed ?? 0) + row.creditsPrior) : null,
        outputs: (store?.outputs(job.key) ?? []).flatMap((o) => (o.path && o.sha256 ? [resolve(plan.outputsDir, o.path)] : [])),
        failedReason: row?.failedReason ?? null,
        doubtReason: row?.status === 'in_doubt' ? (row.doubtReason ?? 'no reason recorded') : null,
      };
    });
    return { manifest: plan.manifestPath, stateDb: dbPath, steps: stepTotals(plan, jobs), totals: totalsOf(jobs), jobs };
  } finally {
    store?.close();
  }
}

/**
 * Opens the state read-only; a database an older reelpipe left (below SCHEMA_VERSION) is
 * migrated first, once, since this build's queries need its columns (a run would do the same).
 */
function openCurrent(dbPath: string): ReturnType<typeof openStateDbReadOnly> {
  const db = openStateDbReadOnly(dbPath);
  if (!db) return db;
  const versioned = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  const version = versioned ? ((db.prepare('SELECT max(version) FROM schema_version').pluck().get() as number | null) ?? 0) : 0;
  if (version >= SCHEMA_VERSION) return db;
  db.close();
  openStateDb(dbPath).close();
  return openStateDbReadOnly(dbPath);
}

function totalsOf(jobs: readonly JobStatusLine[]): StatusReport['totals'] {
  const counts: Record<string, number> = {};
  for (const job of jobs) counts[job.status] = (counts[job.status] ?? 0) + 1;
  return {
    jobs: jobs.length,
    counts,
    creditsEstimated: round(jobs.reduce((s, j) => s + (j.creditsEstimated ?? 0), 0)),
    creditsUsed: round(jobs.reduce((s, j) => s + (j.creditsUsed ?? 0), 0)),
  };
}

function stepTotals(plan: Plan, jobs: readonly JobStatusLine[]): StatusReport['steps'] {
  return plan.steps.map((step) => {
    const { counts, creditsEstimated, creditsUsed } = totalsOf(jobs.filter((j) => j.step === step.id));
    return { id: step.id, kind: step.kind, counts, creditsEstimated, creditsUsed };
  });
}

/** The human form: a line per step, the totals, then every job with its files and, if any, why it failed or is in doubt. */
export function renderStatus(report: StatusReport): string {
  const countText = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ');
  const lines = [`${report.manifest} (state ${report.stateDb})`];
  for (const step of report.steps) {
    lines.push(`  ${step.id.padEnd(20)} ${step.kind.padEnd(18)} ${countText(step.counts).padEnd(36)} credits ${formatCredits(step.creditsUsed)} of ~${formatCredits(step.creditsEstimated)}`);
  }
  lines.push(`total: ${report.totals.jobs} jobs — ${countText(report.totals.counts)}; credits used ${formatCredits(report.totals.creditsUsed)}, estimated ${formatCredits(report.totals.creditsEstimated)}`);
  lines.push('jobs:');
  for (const job of report.jobs) {
    const credits = job.creditsUsed === null ? '' : ` ${formatCredits(job.creditsUsed)} cr`;
    const files = job.outputs.length ? `  ${job.outputs.join(', ')}` : '';
    const reason = job.doubtReason ? `  in doubt: ${job.doubtReason}` : job.failedReason ? `  ${job.failedReason}` : '';
    lines.push(`  ${job.key}  ${job.kind}  ${job.status}${job.remoteId ? `  ${job.remoteId}` : ''}${credits}${files}${reason}`);
  }
  return `${lines.join('\n')}\n`;
}
