/** How many of a step's latest finished jobs the model remembers. */
const WINDOW = 32;

/**
 * How long jobs really take at the service, learned during the run. The kind's typical duration,
 * scaled by each job's media length (expected-duration.ts), is a rough model made before any job
 * ran; once jobs of a step finish, the ratio of their real lives to that model (its median over the
 * step's latest finishes, so one outlier moves nothing) corrects it for the step's other jobs. Why
 * per step: one step's jobs share a kind and a shape, so they share the service's pace.
 *
 * A job's real life is measured by the service's own clock where the answer says it (created_at
 * to updated_at of the finished job: no polling delay, no clock skew); else from its submission
 * to the read that saw it finished.
 */
export class DurationModel {
  private readonly ratios = new Map<string, number[]>();

  observe(step: string, modelledMs: number, livedMs: number): void {
    if (!(modelledMs > 0) || !(livedMs > 0)) return;
    const seen = this.ratios.get(step) ?? [];
    seen.push(livedMs / modelledMs);
    if (seen.length > WINDOW) seen.shift();
    this.ratios.set(step, seen);
  }

  /** The life a job of `step` modelled at `modelledMs` is predicted to have; undefined until one of its step finished. */
  predict(step: string, modelledMs: number): number | undefined {
    const seen = this.ratios.get(step);
    if (!seen || seen.length === 0) return undefined;
    const sorted = [...seen].sort((a, b) => a - b);
    return modelledMs * sorted[Math.floor(sorted.length / 2)]!;
  }
}

/** The life of a finished job by the service's own timestamps, when its answer carries them. */
export function serviceLifeMs(resource: Record<string, unknown>): number | undefined {
  const created = typeof resource.created_at === 'string' ? Date.parse(resource.created_at) : NaN;
  const updated = typeof resource.updated_at === 'string' ? Date.parse(resource.updated_at) : NaN;
  const lived = updated - created;
  return Number.isFinite(lived) && lived > 0 ? lived : undefined;
}
