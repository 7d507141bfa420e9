import { ALL_STYLES, stepInstances, type Manifest, type ManifestStep, type StepInstance } from '../manifest/index.js';
import { estimateCredits } from './estimate.js';
import { jobKey } from './job-key.js';
import { labellerFor, type Upstream } from './job-labels.js';
import { expandAll, type StyleOptions } from './style-catalogue.js';
import type { CreditEstimate, JobRef } from './types.js';

/** A job as its step makes it, before the plan decides its key (a duplicate's ~N), its output name and its label's repeat. */
export interface MadeJob {
  /** Its key before a duplicate's ~N; '' when not asked for (the plan's index has it). */
  key: string;
  request: Record<string, unknown>;
  pathId?: string;
  refs: JobRef[];
  credits: CreditEstimate | null;
  /** The rendered `name:` template, when the step has one (the output name's stem). */
  name: string | undefined;
  label: string;
  origin?: string;
  row?: Record<string, unknown>;
  matrix?: Record<string, unknown>;
  expandedFrom?: string;
}

/**
 * The jobs of a step, in plan order: for each job of its `for_each` step (or once), each of its
 * instances, and each `style_ids: all` instance once per list of styles. `upstream` gives the jobs
 * of the steps it reads (for_each, and `{{ steps.ID… }}`, whose step has one job). `warnings` gets
 * what the styles' expansion and the estimates say. `keys`: each job's key is made (the hash of
 * its request: a fifth of planning), else left '' (the plan's second pass reads it from its index).
 */
export function* stepJobs(
  manifest: Manifest,
  step: ManifestStep,
  upstream: ReadonlyMap<string, readonly Upstream[]>,
  warnings: string[],
  options: StyleOptions & { keys: boolean },
): Generator<MadeJob> {
  const shared = sharedEstimates();
  const references = uniqueReferences(step);
  const items: readonly (Upstream | undefined)[] = step.forEachStep ? (upstream.get(step.forEachStep) ?? []) : [undefined];
  const label = labellerFor(step);
  let ignoredEstimate = false;
  for (const item of items) {
    for (const instance of stepInstances(manifest, step)) {
      const refs: JobRef[] = references.length === 0 ? NO_REFS : references.map((r) => ({
        placeholder: r.text,
        jobKey: (r.ns === 'item' ? item?.key : upstream.get(r.name)?.[0]?.key) ?? '',
        field: r.field.join('.'),
      }));
      const origin = instance.origin && `${instance.origin.file}:${instance.origin.line}`;
      for (const one of allStylesExpanded(step, instance, refs, options, warnings)) {
        const computed = estimateCredits(step.kind, one.request);
        ignoredEstimate ||= computed !== null && step.estimate !== undefined;
        const made: MadeJob = {
          key: options.keys ? jobKey({ step: step.id, kind: step.kind, mode: step.mode, pathId: one.pathId, request: one.request, refs }) : '',
          request: one.request, refs, credits: shared(computed ?? declared(step)), name: one.name, label: label(one, origin, item),
        };
        if (one.pathId !== undefined) made.pathId = one.pathId;
        if (origin) made.origin = origin;
        if (one.row) made.row = one.row;
        if (one.matrix) made.matrix = one.matrix;
        if (one.expandedFrom !== undefined) made.expandedFrom = one.expandedFrom;
        yield made;
      }
    }
  }
  if (ignoredEstimate) warnings.push(`step ${step.id}: estimate_credits ignored, the spec prices ${step.kind}`);
}

/** The steps whose jobs other steps' jobs are made over: `for_each: { step }`, and `{{ steps.ID… }}` references. */
export function stepsRead(steps: readonly ManifestStep[]): Set<string> {
  const read = new Set<string>();
  for (const step of steps) {
    if (step.forEachStep !== undefined) read.add(step.forEachStep);
    for (const { placeholder } of step.template.placeholders) if (placeholder.ns === 'steps') read.add(placeholder.name);
  }
  return read;
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
