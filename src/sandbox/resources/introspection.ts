import { json } from '../http/reply.js';
import type { SandboxCore } from '../core.js';
import type { Job } from '../store.js';
import { iso, type Registrar } from './common.js';

/** An item of GET /__sandbox/jobs: every job the sandbox made, with its life cycle so far. */
export interface SandboxJobView {
  kind: string;
  id: string;
  status: string;
  /** The creation body as received. */
  body: Record<string, unknown>;
  credits_used: number;
  created_at: string;
  /** Every status the job has had, oldest first, with when. */
  history: { status: string; at: string }[];
}

export const jobView = (job: Job): SandboxJobView => ({
  kind: job.kind,
  id: job.id,
  status: job.status,
  body: job.request,
  credits_used: job.creditsUsed,
  created_at: iso(job.createdAt),
  history: job.history.map((h) => ({ status: h.status, at: iso(h.at) })),
});

export const snapshotStats = (core: SandboxCore) => core.stats.snapshot(core.options.speed, core.ledger, core.faults, core.webhooks, core.engine.alive);

/** Introspection for tests and benchmarks (no credentials), and the account's balance. */
export const registerIntrospection: Registrar = (router, core) => {
  const open = { auth: false };
  router.add('GET', '/__sandbox/stats', () => json(200, snapshotStats(core)), open);
  router.add('GET', '/__sandbox/jobs', () => json(200, core.store.all().map(jobView)), open);
  router.add('GET', '/api/remaining_credits/', () => json(200, { remaining_credits: core.ledger.balance }));
};
