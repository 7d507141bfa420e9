import { InvalidInputError } from '../errors.js';
import { ALL_STYLES, expandManifest, releaseExpansion, type Manifest, type ManifestStep, type StepInstance } from '../manifest/index.js';
import { estimateCredits } from './estimate.js';
import { jobKey } from './job-key.js';
import { labellerFor, uniqueLabels, type Labeller } from './job-labels.js';
import { outputNames } from './output-names.js';
import { addCredits, knownOrNull, ZERO } from './totals.js';
import type { CreditEstimate, JobRef, Plan, PlannedJob, StepPlan } from './types.js';
import { checkStyles, expandAll, type StyleOptions } from './style-catalogue.js';
import { locatedIn } from '../manifest/read/yaml-source.js';
import { count, raise } from '../manifest/syntax/limits.js';

/**
 * The planner: a loaded manifest in, every job it implies out — keyed, priced and bound to the
 * upstream jobs its references read. Pure: no clock, no network, no disk; the same manifest always
 * gives the same plan.
 */
export interface PlanOptions extends StyleOptions {
  /** Overrides the manifest's budget.max_credits (the `--max-credits` flag). @default manifest budget */
  maxCredits?: number;
  /**
   * A trial against the embedded sandbox: its outputs go to `OUTPUTS.sandbox`, beside the real
   * folder, never into it (a sandbox's stand-in videos must not sit among real ones).
   * @default false
   */
  sandbox?: boolean;
}

/** The suffix of a sandbox run's outputs folder (see PlanOptions.sandbox). */
export const SANDBOX_OUTPUTS_SUFFIX = '.sandbox';

export function planManifest(manifest: Manifest, options: PlanOptions = {}): Plan {
  const expansion = expandManifest(manifest);
  if (expansion.issues.length > 0) throw new InvalidInputError(expansion.issues, `${manifest.displayFile}: invalid manifest`);
  const byId = new Map(manifest.steps.map((s) => [s.id, s]));
  const warnings = [...manifest.warnings];
  checkStyles(manifest, expansion, options, warnings);
  const jobsByStep = new Map<string, PlannedJob[]>();
  const steps: StepPlan[] = [];
  const duplicates: Plan['duplicates'] = [];
  for (const id of expansion.order) {
    const step = byId.get(id) as ManifestStep;
    const jobs = planStep(step, expansion.instances.get(id) ?? [], jobsByStep, warnings, options);
    if (jobs.length > manifest.limits.jobsPerStep) throw overLimit(manifest, step, jobs.length);
    // Before any later step binds a reference to these keys.
    duplicates.push(...markDuplicates(jobs));
    jobsByStep.set(id, jobs);
    steps.push(stepPlan(step, jobs, manifest.retries));
  }
  const jobs = expansion.order.flatMap((id) => jobsByStep.get(id) ?? []);
  for (const d of duplicates) warnings.push(`${d.count} identical jobs in step ${d.step} (${d.key}): each is made; keys ${d.key}, ${d.key}~2, …`);
  warnings.push(...outputNames(jobs));
  uniqueLabels(jobs);
  releaseExpansion(manifest);
  return {
    name: manifest.name,
    manifestPath: manifest.file,
    manifestId: manifest.identity,
    outputsDir: options.sandbox ? `${manifest.outputsDir}${SANDBOX_OUTPUTS_SUFFIX}` : manifest.outputsDir,
    concurrency: manifest.concurrency,
    kindConcurrency: manifest.kindConcurrency,
    budget: { maxCredits: options.maxCredits ?? manifest.budget.maxCredits },
    steps,
    jobs,
    totals: totalsOf(steps),
    duplicates,
    warnings,
  };
}

function planStep(step: ManifestStep, instances: StepInstance[], done: Map<string, PlannedJob[]>, warnings: string[], options: StyleOptions): PlannedJob[] {
  const shared = sharedEstimates();
  const references = uniqueReferences(step);
  const upstream = step.forEachStep ? (done.get(step.forEachStep) ?? []) : [undefined];
  let ignoredEstimate = false;
  const label = labellerFor(step);
  const jobs: PlannedJob[] = [];
  for (const item of upstream) {
    for (const instance of instances) {
      const refs: JobRef[] = references.length === 0 ? NO_REFS : references.map((r) => ({
        placeholder: r.text,
        jobKey: (r.ns === 'item' ? item?.key : done.get(r.name)?.[0]?.key) ?? '',
        field: r.field.join('.'),
      }));
      for (const one of allStylesExpanded(step, instance, refs, options, warnings)) {
        const computed = estimateCredits(step.kind, one.request);
        ignoredEstimate ||= computed !== null && step.estimate !== undefined;
        const job = plannedJob(step, one, refs, shared(computed ?? declared(step)), label, item);
        if (one !== instance) job.expandedFrom = one.expandedFrom;
        jobs.push(job);
      }
    }
  }
  if (ignoredEstimate) warnings.push(`step ${step.id}: estimate_credits ignored, the spec prices ${step.kind}`);
  return jobs;
}

function plannedJob(
  step: ManifestStep,
  instance: StepInstance,
  refs: JobRef[],
  credits: CreditEstimate | null,
  label: Labeller,
  upstream: PlannedJob | undefined,
): PlannedJob {
  const key = jobKey({ step: step.id, kind: step.kind, mode: step.mode, pathId: instance.pathId, request: instance.request, refs });
  const origin = instance.origin && `${instance.origin.file}:${instance.origin.line}`;
  const job: PlannedJob = {
    key, step: step.id, kind: step.kind, request: instance.request, refs, credits, outputName: instance.name ?? '', download: step.download,
    label: label(instance, origin, upstream), priority: step.priority,
  };
  if (step.mode) job.mode = step.mode;
  if (instance.pathId !== undefined) job.pathId = instance.pathId;
  if (origin) job.origin = origin;
  if (instance.row) job.row = instance.row;
  if (instance.matrix) job.matrix = instance.matrix;
  return job;
}

/**
 * An HTML ad instance of `style_ids: all` as one instance per list of styles the catalogue gives
 * (plan/style-catalogue.ts), each knowing the key of the request it came from (kept with its job,
 * so a later catalogue leaves it as it was sent); any other instance as it is.
 */
function allStylesExpanded(step: ManifestStep, instance: StepInstance, refs: JobRef[], options: StyleOptions, warnings: string[]): (StepInstance & { expandedFrom?: string })[] {
  if (step.kind !== 'html_ads' || instance.request.style_ids !== ALL_STYLES || !options.styles) return [instance];
  const from = jobKey({ step: step.id, kind: step.kind, mode: step.mode, pathId: instance.pathId, request: instance.request, refs });
  const { groups, added, removed } = expandAll(options.styles, options.plannedItems?.get(from) ?? []);
  const where = instance.origin ? ` (${instance.origin.file}:${instance.origin.line})` : '';
  if (added.length) warnings.push(`step ${step.id}${where}: style_ids: all — ${added.length} style${added.length === 1 ? '' : 's'} added to ${options.styles.said} since its ads were sent (${added.join(', ')}): a new job makes them`);
  if (removed.length) warnings.push(`step ${step.id}${where}: style_ids: all — ${removed.length} style${removed.length === 1 ? '' : 's'} no longer offered by ${options.styles.said} (${removed.join(', ')}): their ads stay as they were made`);
  return groups.map((group) => ({ ...instance, request: { ...instance.request, style_ids: group }, expandedFrom: from }));
}

/**
 * A step over its job limit once `style_ids: all` is expanded with the catalogue (expansion counted
 * it as one job a request, not knowing the catalogue): refused as expansion refuses one.
 */
function overLimit(manifest: Manifest, step: ManifestStep, jobs: number): InvalidInputError {
  const issue = locatedIn(manifest.source)(['steps', step.index], `${count(jobs)} jobs (style_ids: ${ALL_STYLES} split into jobs of at most 20 of the catalogue's styles), above the limit of ${count(manifest.limits.jobsPerStep)} jobs per step; ${raise('jobs_per_step')}`);
  return new InvalidInputError([issue], `${manifest.displayFile}: invalid manifest`);
}

/**
 * One frozen object for each distinct estimate of a step: its jobs mostly cost the same (every
 * AI Short of one length), and a 100,000-job plan need not hold 100,000 equal estimates.
 */
function sharedEstimates(): (estimate: CreditEstimate | null) => CreditEstimate | null {
  const seen = new Map<string, CreditEstimate>();
  return (estimate) => {
    if (estimate === null) return null;
    const id = `${estimate.low}|${estimate.expected}|${estimate.high}|${estimate.exact}`;
    let one = seen.get(id);
    if (!one) seen.set(id, (one = Object.freeze(estimate)));
    return one;
  };
}

/** Shared by every job without references: a 100,000-job plan need not hold 100,000 empty arrays. */
const NO_REFS: JobRef[] = [];

const declared = (step: ManifestStep): CreditEstimate | null => (step.estimate ? { ...step.estimate, exact: false } : null);

function uniqueReferences(step: ManifestStep) {
  const seen = new Map<string, ManifestStep['template']['placeholders'][number]['placeholder']>();
  for (const { placeholder } of step.template.placeholders) {
    if (placeholder.ns === 'steps' || placeholder.ns === 'item') seen.set(placeholder.text, placeholder);
  }
  return [...seen.values()];
}

function stepPlan(step: ManifestStep, jobs: PlannedJob[], retries: number): StepPlan {
  let credits = ZERO;
  let unknownJobs = 0;
  for (const job of jobs) {
    if (job.credits) credits = addCredits(credits, job.credits);
    else unknownJobs++;
  }
  const plan: StepPlan = {
    id: step.id, kind: step.kind, jobs: jobs.length, credits: knownOrNull(credits, jobs.length, unknownJobs), unknownJobs, needs: step.needs, download: step.download,
    priority: step.priority, retries: step.retries ?? retries,
  };
  if (step.mode) plan.mode = step.mode;
  return plan;
}

/** A plan's totals from its steps' (the planner's, and a --step selection's). */
export function totalsOf(steps: readonly StepPlan[]): Plan['totals'] {
  const jobs = steps.reduce((n, s) => n + s.jobs, 0);
  const unknownJobs = steps.reduce((n, s) => n + s.unknownJobs, 0);
  const credits = steps.reduce((sum, s) => (s.credits ? addCredits(sum, s.credits) : sum), ZERO);
  return { jobs, credits: knownOrNull(credits, jobs, unknownJobs), unknownJobs };
}

/**
 * Identical jobs (same step, same request) are not merged: a user may want two takes of the same
 * script. Each keeps a distinct key — KEY, KEY~2, KEY~3 in plan order — and the set is reported.
 */
function markDuplicates(jobs: readonly PlannedJob[]): Plan['duplicates'] {
  const seen = new Set<string>();
  const repeats = new Map<string, number>();
  for (const job of jobs) {
    if (!seen.has(job.key)) {
      seen.add(job.key);
      continue;
    }
    const n = (repeats.get(job.key) ?? 1) + 1;
    repeats.set(job.key, n);
    job.key = `${job.key}~${n}`;
  }
  return [...repeats].map(([key, count]) => ({ key, step: jobs[0]?.step ?? '', count }));
}
