import { InvalidInputError } from '../errors.js';
import { ALL_STYLES, expandManifest, type Manifest, type ManifestStep } from '../manifest/index.js';
import { locatedIn } from '../manifest/read/yaml-source.js';
import { count, raise } from '../manifest/syntax/limits.js';
import type { Upstream } from './job-labels.js';
import { sanitiseStem } from './output-names.js';
import { PlanIndex } from './plan-index.js';
import { DuplicateKeys, fromKey, LabelRepeats, NameCounts } from './plan-repeats.js';
import { stepJobs, stepsRead } from './step-jobs.js';
import { addCredits, knownOrNull, ZERO } from './totals.js';
import type { CreditTotal, ListedPlan, Plan, PlannedJob, StepPlan } from './types.js';
import { checkStyles, type StyleOptions } from './style-catalogue.js';

/**
 * The planner, as a stream: a loaded manifest in, every job it implies out — keyed, priced and
 * bound to the upstream jobs its references read — one job at a time. Pure: no clock, no network,
 * no disk; the same manifest always gives the same plan.
 *
 * Two passes over the manifest's instances (each made afresh from its rows, stepInstances):
 *   1. the head (`planStream` itself): each job's key, output name and step into the plan's
 *      compact index (plan-index.ts), each step's count and credits, the plan's totals, its
 *      duplicates and warnings, the output names two jobs would share and the labels repeated;
 *   2. the jobs (`jobs()`, as often as asked): each job made whole again, in plan order, with the
 *      key and output name the head gave it.
 * What a job is made of in pass 2 that pass 1 also decided is read from pass 1's index (keys,
 * names) or its few exceptions (a repeated label's new text), never decided twice. What a pass
 * holds per job is the index; pass 1 also holds, until it ends, a table of the output names and
 * labels seen (to find the repeats). A step that another step reads `for_each` keeps its jobs'
 * keys and labels for the plan's life (the jobs of the step over it name them).
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

/** A plan without its jobs: what is decided over the whole plan. */
export type PlanHead = Omit<Plan, 'jobs'>;

/** A streamed plan: its jobs made afresh at each pass, and the index of their keys, output names and steps. */
export interface PlanStream extends Plan {
  /** Each job's key, output name and step, by its place in the plan. */
  index: PlanIndex;
}

export function planStream(manifest: Manifest, options: PlanOptions = {}): PlanStream {
  const expansion = expandManifest(manifest);
  if (expansion.issues.length > 0) throw new InvalidInputError(expansion.issues, `${manifest.displayFile}: invalid manifest`);
  const byId = new Map(manifest.steps.map((s) => [s.id, s]));
  const ordered = expansion.order.map((id) => byId.get(id) as ManifestStep);
  const warnings = [...manifest.warnings];
  checkStyles(manifest, options, warnings);
  const index = new PlanIndex(expansion.order);
  const kept = new Map<string, Upstream[]>();
  const read = stepsRead(ordered);
  const names = new NameCounts(index);
  const labels = new LabelRepeats();
  const steps: StepPlan[] = [];
  const duplicates: Plan['duplicates'] = [];
  for (const [number, step] of ordered.entries()) {
    const keys = new DuplicateKeys(step.id, index);
    const upstream: Upstream[] | undefined = read.has(step.id) ? [] : undefined;
    let [credits, unknownJobs, jobs] = [ZERO, 0, 0];
    for (const made of stepJobs(manifest, step, kept, warnings, { ...options, keys: true })) {
      const key = keys.unique(made.key);
      const name = sanitiseStem(made.name ?? '') || fromKey(key);
      const place = index.add(key, name, number);
      names.add(place);
      labels.add(made.label, place);
      upstream?.push({ key, label: made.label });
      if (made.credits) credits = addCredits(credits, made.credits);
      else unknownJobs++;
      jobs++;
    }
    if (jobs > manifest.limits.jobsPerStep) throw overLimit(manifest, step, jobs);
    if (upstream) kept.set(step.id, upstream);
    duplicates.push(...keys.repeats());
    steps.push(stepPlan(step, jobs, knownOrNull(credits, jobs, unknownJobs), unknownJobs, manifest.retries));
  }
  for (const d of duplicates) warnings.push(`${d.count} identical jobs in step ${d.step} (${d.key}): each is made; keys ${d.key}, ${d.key}~2, …`);
  warnings.push(...names.resolve());
  index.trim();
  const renamed = labels.renamed();
  const head: PlanHead = {
    name: manifest.name,
    manifestPath: manifest.file,
    manifestId: manifest.identity,
    outputsDir: options.sandbox ? `${manifest.outputsDir}${SANDBOX_OUTPUTS_SUFFIX}` : manifest.outputsDir,
    concurrency: manifest.concurrency,
    kindConcurrency: manifest.kindConcurrency,
    budget: { maxCredits: options.maxCredits ?? manifest.budget.maxCredits },
    steps,
    totals: totalsOf(steps),
    duplicates,
    warnings,
  };
  function* pass(): Generator<PlannedJob> {
    let place = 0;
    for (const step of ordered) {
      for (const made of stepJobs(manifest, step, kept, [], { ...options, keys: false })) {
        const job: PlannedJob = {
          key: index.key(place), step: step.id, kind: step.kind, request: made.request, refs: made.refs, credits: made.credits,
          outputName: index.outputName(place), download: step.download, label: renamed.get(place) ?? made.label, priority: step.priority,
        };
        if (step.mode) job.mode = step.mode;
        if (made.pathId !== undefined) job.pathId = made.pathId;
        if (made.origin) job.origin = made.origin;
        if (made.row) job.row = made.row;
        if (made.matrix) job.matrix = made.matrix;
        if (made.expandedFrom !== undefined) job.expandedFrom = made.expandedFrom;
        place++;
        yield job;
      }
    }
  }
  return { ...head, jobs: { length: index.size, [Symbol.iterator]: pass }, index };
}

/** A plan whose jobs are all held, in plan order: for the commands and tests that read them as a list. */
export function planManifest(manifest: Manifest, options: PlanOptions = {}): ListedPlan {
  const { jobs, index: _index, ...head } = planStream(manifest, options);
  return { ...head, jobs: [...jobs] };
}

/**
 * A step over its job limit once `style_ids: all` is expanded with the catalogue (expansion counted
 * it as one job a request, not knowing the catalogue): refused as expansion refuses one.
 */
function overLimit(manifest: Manifest, step: ManifestStep, jobs: number): InvalidInputError {
  const issue = locatedIn(manifest.source)(['steps', step.index], `${count(jobs)} jobs (style_ids: ${ALL_STYLES} split into jobs of at most 20 of the catalogue's styles), above the limit of ${count(manifest.limits.jobsPerStep)} jobs per step; ${raise('jobs_per_step')}`);
  return new InvalidInputError([issue], `${manifest.displayFile}: invalid manifest`);
}

function stepPlan(step: ManifestStep, jobs: number, credits: CreditTotal | null, unknownJobs: number, retries: number): StepPlan {
  const plan: StepPlan = {
    id: step.id, kind: step.kind, jobs, credits, unknownJobs, needs: step.needs, download: step.download,
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
