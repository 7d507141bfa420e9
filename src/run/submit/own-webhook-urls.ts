import type { Manifest } from '../../manifest/index.js';
import type { Plan } from '../../plan/index.js';
import { adapterFor } from '../adapters/index.js';
import { getsAttemptWebhook } from './submit-job.js';

/**
 * A run listening for webhooks gives every attempt of a kind that takes `webhook_url` its own
 * address, so a job whose create answer is lost is adopted from its delivery. A `webhook_url` the
 * manifest writes for a step wins (submit-job.ts: the user's address is never replaced), and that
 * step's jobs then get no per-attempt address: the run hears nothing of them. Said once per step,
 * before anything is sent, because the cost shows only later, as jobs held in doubt.
 */
export function ownWebhookUrlWarnings(manifest: Manifest, plan: Plan): string[] {
  const warnings: string[] = [];
  // A render keeps its preview's id and never gets a per-attempt address anyway (submit-job.ts).
  const asked = new Set(plan.steps.filter((s) => getsAttemptWebhook(s.kind, s.mode)).map((s) => s.id));
  if (asked.size === 0) return warnings;
  // Counted in one pass over the jobs, per step.
  const owning = new Map<string, number>();
  for (const job of plan.jobs) if (asked.has(job.step) && job.request.webhook_url !== undefined && job.request.webhook_url !== null) owning.set(job.step, (owning.get(job.step) ?? 0) + 1);
  for (const planned of plan.steps) {
    const own = owning.get(planned.id) ?? 0;
    if (own === 0) continue;
    const step = manifest.steps.find((s) => s.id === planned.id);
    const where = step ? ` (${manifest.displayFile}:${manifest.source.locate(step.withOrigin(['webhook_url'])).line})` : '';
    const jobs = own === planned.jobs ? 'its jobs' : `${own} of its ${planned.jobs} jobs`;
    const lost = adapterFor(planned.kind, planned.mode).reconcile === 'none'
      ? 'cannot be adopted automatically'
      : 'is found only by searching the service\'s list';
    // Kept under a progress line's width (200): the step and the consequence first, the place last.
    warnings.push(
      `warning: step ${planned.id} sets its own webhook_url, so --webhook-listen gives ${jobs} no per-attempt address: ` +
        `one whose create answer is lost ${lost}${where}`,
    );
  }
  return warnings;
}
