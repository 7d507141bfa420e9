import type { InputIssue } from '../../errors.js';
import { HTML_AD_MAX_STYLES } from '../../api/schemas/index.js';
import { count, raise } from '../syntax/limits.js';
import type { Manifest, ManifestStep } from '../types.js';
import { locatedIn } from '../read/yaml-source.js';

/**
 * Counts the jobs of each step, in order, against the manifest's limits (src/manifest/syntax/limits.ts):
 * per step, and for the steps together. A step is counted by multiplication (rows × matrix
 * combinations × the jobs of its `for_each` step) before it is expanded, so a step of billions of
 * jobs is refused at once; and again after, when splitting long style lists made more.
 */
export class JobBudget {
  private readonly counted: [id: string, jobs: number][] = [];
  private total = 0;

  constructor(
    private readonly manifest: Pick<Manifest, 'limits' | 'source'>,
    private readonly counts: Map<string, number>,
  ) {}

  /** Records `jobs` as the step's count; the issue when that passes a limit. */
  check(step: ManifestStep, jobs: number, upstream: number, split = false): InputIssue | undefined {
    this.counts.set(step.id, jobs);
    const { jobsPerStep, jobsPerManifest } = this.manifest.limits;
    const at = (message: string) => locatedIn(this.manifest.source)(placeOf(step), message);
    if (jobs > jobsPerStep) {
      return at(`${count(jobs)} jobs (${factors(step, upstream, split)}), above the limit of ${count(jobsPerStep)} jobs per step; ${raise('jobs_per_step')}`);
    }
    if (this.total + jobs > jobsPerManifest) {
      const steps = [...this.counted, [step.id, jobs] as const].map(([id, n]) => `${id}: ${count(n)}`).join(', ');
      return at(`the steps up to this one make ${count(this.total + jobs)} jobs (${steps}), above the limit of ${count(jobsPerManifest)} jobs per manifest; ${raise('jobs_per_manifest')}`);
    }
    return undefined;
  }

  /** Adds the step's recorded count to the manifest's total. */
  add(step: ManifestStep): void {
    const jobs = this.counts.get(step.id) ?? 0;
    this.counted.push([step.id, jobs]);
    this.total += jobs;
  }
}

/** The step's jobs are multiplied where its rows or its matrix are written. */
function placeOf(step: ManifestStep): (string | number)[] {
  if (step.rows || step.forEachStep !== undefined) return ['steps', step.index, 'for_each'];
  return step.matrix ? ['steps', step.index, 'matrix'] : ['steps', step.index];
}

function factors(step: ManifestStep, upstream: number, split: boolean): string {
  const parts: string[] = [];
  if (step.rows) parts.push(`${count(step.rows.count)} rows`);
  if (step.matrix) parts.push(`${count(step.matrix.length)} matrix combinations`);
  if (step.forEachStep !== undefined) parts.push(`${count(upstream)} jobs of step ${step.forEachStep}`);
  const product = parts.join(' × ') || 'one job';
  return split ? `${product}, with style lists split into jobs of at most ${HTML_AD_MAX_STYLES} styles` : product;
}
