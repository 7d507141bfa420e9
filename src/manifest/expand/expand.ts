import { formatIssue, type InputIssue } from '../../errors.js';
import { checkableStyles, splitStyleIds, styleIdIssues, unknownStyleIssues, type StyleCatalogue } from './html-ads.js';
import { JobBudget } from './job-budget.js';
import { requestSchemaFor, takesPathId } from '../check/kinds.js';
import type { Combination } from '../syntax/matrix.js';
import type { Placeholder } from '../syntax/placeholders.js';
import { render, type Path, type RenderContext, type Template } from '../syntax/template.js';
import type { Manifest, ManifestStep } from '../types.js';
import { dotted, locatedIn, missingIn } from '../read/yaml-source.js';
import { readableIssues, show, type ReadableIssue } from '../check/zod-issues.js';
import { topologicalOrder } from '../check/graph.js';

/**
 * Expansion: each step's rows × matrix combinations become concrete request bodies, each checked
 * by the client's request schema (references replaced by stand-ins for the check, kept as
 * placeholders in the body). Pure. Nothing per instance is kept: loadManifest checks every
 * instance once (expandSteps, memoised per manifest as counts and issues), and the planner makes
 * them again, one at a time, with `stepInstances` — why: the instances of a 1,000,000-row manifest,
 * held between the two, were most of what planning it held (issue 24).
 */
export interface StepInstance {
  /** The body; `{{ steps… }}` / `{{ item… }}` references left in place. */
  request: Record<string, unknown>;
  /** For kinds that take an id in the path (may be a reference placeholder). */
  pathId?: string;
  /** The rendered `name:` template, when the step has one. */
  name?: string;
  /** Where the row came from, for messages. */
  origin?: { file: string; line: number };
  /** The row itself (as its RowSet gives it): labels and results.csv. */
  row?: Record<string, unknown>;
  /** The matrix combination (shared with the step's list, by reference). */
  matrix?: Combination;
}

export interface Expansion {
  /** Step ids in topological order. */
  order: string[];
  /** Jobs per step: instances, times the upstream's jobs for `for_each: { step }`. */
  jobCounts: Map<string, number>;
  issues: InputIssue[];
  warnings: string[];
}

const memo = new WeakMap<Manifest, Expansion>();

export function expandManifest(manifest: Manifest): Expansion {
  const cached = memo.get(manifest);
  if (cached) return cached;
  const expansion = expandSteps(manifest);
  memo.set(manifest, expansion);
  return expansion;
}

/** What expansion reads of a manifest: some of its steps, the environment they use, the YAML, the limits. */
export type Scope = Pick<Manifest, 'steps' | 'env' | 'source' | 'limits'>;

/**
 * Checks the given steps' instances (loadManifest checks the sound steps of a manifest that has
 * other problems this way). Steps in a cycle are left out of `order` and not expanded. A step's
 * jobs are counted by multiplication before it is expanded: one above a job limit stops the
 * expansion there, and it and the steps after it are left out of `order`.
 */
export function expandSteps(manifest: Scope): Expansion {
  const sink = new IssueSink();
  const warnings: string[] = [];
  const byId = new Map(manifest.steps.map((s) => [s.id, s]));
  const { order } = topologicalOrder(manifest.steps);
  const jobCounts = new Map<string, number>();
  const budget = new JobBudget(manifest, jobCounts);
  for (const [position, id] of order.entries()) {
    const step = byId.get(id) as ManifestStep;
    const upstream = step.forEachStep ? (jobCounts.get(step.forEachStep) ?? 0) : 1;
    let over = budget.check(step, contextCount(step) * upstream, upstream);
    if (!over) {
      let instances = 0;
      for (const _ of instancesOf(manifest, step, sink)) instances++;
      over = budget.check(step, instances * upstream, upstream, true);
    }
    if (over) {
      sink.add(over);
      return { order: order.slice(0, position), jobCounts, issues: sink.issues, warnings };
    }
    budget.add(step);
    if (jobCounts.get(id) === 0) warnings.push(`step ${id} has no jobs${step.rows ? ` (${step.rows.file} has no rows)` : ''}`);
  }
  for (const step of manifest.steps) checkSingleJobReferences(manifest, step, jobCounts, sink);
  return { order, jobCounts, issues: sink.issues, warnings };
}

/**
 * The instances of a step of a checked manifest (loadManifest found no problem in it), made one at
 * a time in row × matrix order, without checking them again: the same instances, in the same order,
 * as the check passed.
 */
export function stepInstances(manifest: Scope, step: ManifestStep): Generator<StepInstance> {
  return instancesOf(manifest, step, null);
}

/** Row × matrix combinations: the jobs of a step before `for_each: { step }` and style splits multiply them. */
const contextCount = (step: ManifestStep) => (step.rows?.count ?? 1) * (step.matrix?.length ?? 1);

/** Collects issues once each: the same bad literal repeats on every row, but is one problem. */
class IssueSink {
  readonly issues: InputIssue[] = [];
  private readonly seen = new Set<string>();
  add(issue: InputIssue) {
    const text = formatIssue(issue);
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.issues.push(issue);
  }
}

type Context = { row?: Record<string, unknown>; rowIndex?: number; combo?: Combination };

function* contextsOf(step: ManifestStep): Generator<Context> {
  const combos: (Combination | undefined)[] = step.matrix ?? [undefined];
  if (!step.rows) {
    for (const combo of combos) yield { combo };
    return;
  }
  for (let rowIndex = 0; rowIndex < step.rows.count; rowIndex++) {
    const row = step.rows.row(rowIndex);
    for (const combo of combos) yield { row, rowIndex, combo };
  }
}

/**
 * The step's instances, in row × matrix order. With `sink`, each is checked (a missing value, the
 * style ids, the request schema) and only the sound ones are yielded, every problem going to the
 * sink; without it (a checked manifest), none is checked.
 */
function* instancesOf(manifest: Scope, step: ManifestStep, sink: IssueSink | null): Generator<StepInstance> {
  const schema = requestSchemaFor(step.kind, step.mode);
  const pathId = takesPathId(step.kind, step.mode);
  for (const ctx of contextsOf(step)) {
    const origin = originOf(step, ctx);
    const missing: Placeholder[] = [];
    const lookup = lookupFor(step, manifest.env, ctx, missing);
    const request = render(step.template.root, { lookup, references: 'keep' }) as Record<string, unknown>;
    const bodies = step.kind === 'html_ads' ? splitStyleIds(request) : [request];
    if (!sink) {
      for (const body of bodies) yield instanceOf(step, body, pathId, lookup, origin, ctx);
      continue;
    }
    if (missing.length > 0) {
      for (const p of missing) sink.add(missingValue(manifest, step, ctx, p, origin));
      continue;
    }
    const styles = step.kind === 'html_ads' ? styleIdIssues(request) : [];
    for (const issue of styles) sink.add(locate(manifest, step, issue, origin, ctx));
    const checks = (step.template.hasReferences ? standInBodies(step, lookup) : bodies).map(step.kind === 'html_ads' ? checkableStyles : (b) => b);
    for (const [i, body] of bodies.entries()) {
      const result = schema.safeParse(checks[i], { reportInput: true });
      if (!result.success) {
        for (const r of readableIssues(result.error.issues, schema)) sink.add(locate(manifest, step, r, origin, ctx));
      } else if (styles.length === 0) yield instanceOf(step, body, pathId, lookup, origin, ctx);
    }
  }
}

function standInBodies(step: ManifestStep, lookup: RenderContext['lookup']): Record<string, unknown>[] {
  const check = render(step.template.root, { lookup, references: 'stand-in' }) as Record<string, unknown>;
  return step.kind === 'html_ads' ? splitStyleIds(check) : [check];
}

function instanceOf(
  step: ManifestStep,
  body: Record<string, unknown>,
  pathId: boolean,
  lookup: RenderContext['lookup'],
  origin: StepInstance['origin'],
  ctx: Context,
): StepInstance {
  const instance: StepInstance = { request: body };
  if (pathId) {
    const { id, ...rest } = body;
    instance.request = rest;
    instance.pathId = String(id);
  }
  if (step.nameTemplate) instance.name = String(render(step.nameTemplate.root, { lookup, references: 'keep' }) ?? '');
  if (origin) instance.origin = origin;
  if (ctx.row) instance.row = ctx.row;
  if (ctx.combo) instance.matrix = ctx.combo;
  return instance;
}

function lookupFor(step: ManifestStep, env: Record<string, string>, ctx: Context, missing: Placeholder[]): RenderContext['lookup'] {
  return (p) => {
    let value: unknown;
    let text = true;
    if (p.ns === 'row') {
      value = ctx.row?.[p.name];
      text = step.rows?.text ?? false;
      if ((value === undefined || value === '') && Object.hasOwn(step.rowDefaults, p.name)) {
        [value, text] = [step.rowDefaults[p.name], false];
      }
    } else if (p.ns === 'matrix') [value, text] = [ctx.combo?.[p.name], false];
    else if (p.ns === 'env') value = env[p.name];
    if (value === undefined) {
      missing.push(p);
      return undefined;
    }
    return { value, text };
  };
}

function originOf(step: ManifestStep, ctx: Context): StepInstance['origin'] {
  if (!step.rows || ctx.rowIndex === undefined) return undefined;
  return { file: step.rows.file, line: step.rows.line(ctx.rowIndex) };
}

function missingValue(manifest: Scope, step: ManifestStep, ctx: Context, p: Placeholder, origin: StepInstance['origin']): InputIssue {
  if (p.ns === 'row' && origin) {
    const fields = Object.keys(ctx.row ?? {}).join(', ');
    return { ...origin, path: dotted(['steps', step.index, 'for_each']), message: `this row has no ${p.name} (fields: ${fields})` };
  }
  const where = locatedIn(manifest.source);
  const found = step.template.placeholders.find((f) => f.placeholder.text === p.text);
  const combo = ctx.combo ? ` ${show(ctx.combo)}` : '';
  return where(found ? step.withOrigin(found.path) : ['steps', step.index], `${p.text} has no value in matrix combination${combo}`);
}

/**
 * The explicit style ids of the manifest's HTML ad steps that `catalogue` does not offer, each
 * located where it is written (a row's cell, or the YAML). Planning asks this of the catalogue it
 * is given; without one, ids are checked by the run against the service before anything is sent.
 */
export function catalogueIssues(manifest: Manifest, catalogue: StyleCatalogue): InputIssue[] {
  const sink = new IssueSink();
  for (const step of manifest.steps) {
    if (step.kind !== 'html_ads') continue;
    for (const instance of stepInstances(manifest, step)) {
      for (const issue of unknownStyleIssues(instance.request, catalogue)) sink.add(locate(manifest, step, issue, instance.origin, { ...(instance.row ? { row: instance.row } : {}), ...(instance.matrix ? { combo: instance.matrix } : {}) }));
    }
  }
  return sink.issues;
}

/**
 * A problem is reported where the bad value is written. A value that came from a row: at that
 * row — at the cell (CSV), the value (JSONL) or the row's field (inline rows) it came from. A
 * value that is a matrix value as a whole (`"{{ matrix.AXIS }}"`): at that value in `matrix:`
 * (`steps.N.matrix.AXIS.I`), naming the field it was used as. Otherwise in the YAML, at the field.
 */
function locate(manifest: Scope, step: ManifestStep, issue: ReadableIssue, origin: StepInstance['origin'], ctx: Context): InputIssue {
  const full = issue.key === undefined ? issue.path : [...issue.path, issue.key];
  const written = stringAt(step.template.root, full);
  const field = origin && written?.parts.find((p): p is Placeholder => typeof p === 'object' && p.ns === 'row')?.name;
  if (origin && field !== undefined) {
    const cell = ctx.rowIndex === undefined ? undefined : step.rows?.locate?.(ctx.rowIndex, field);
    return { ...origin, ...cell, path: dotted(['steps', step.index, 'with', ...full]), message: issue.message };
  }
  const axis = written?.whole?.ns === 'matrix' ? written.whole.name : undefined;
  const inMatrix = axis !== undefined && ctx.combo ? step.matrixOrigin?.(ctx.combo, axis) : undefined;
  if (inMatrix) return locatedIn(manifest.source)(inMatrix, `as ${dotted(step.withOrigin(full))}, ${issue.message}`);
  if (issue.missing) return missingIn(manifest.source)(step.withOrigin(issue.path), issue.message);
  return locatedIn(manifest.source)(step.withOrigin(issue.path), issue.message, issue.key);
}

/** The templated string that produced the value at `path` (it, or one holding it as a whole value), if one did. */
function stringAt(template: Template, path: Path): Extract<Template, { t: 'str' }> | undefined {
  let node: Template | undefined = template;
  for (const segment of [...path, undefined]) {
    if (!node) return undefined;
    if (node.t === 'str') return node;
    if (segment === undefined || node.t === 'lit') return undefined;
    node = node.t === 'obj' ? node.entries.find(([k]) => k === segment)?.[1] : node.t === 'arr' ? node.items[Number(segment)] : undefined;
  }
  return undefined;
}

/** `{{ steps.ID.FIELD }}` binds to one job; a step of many jobs is read with for_each: { step }. */
function checkSingleJobReferences(manifest: Scope, step: ManifestStep, counts: Map<string, number>, sink: IssueSink) {
  const at = locatedIn(manifest.source);
  for (const f of step.template.placeholders) {
    const { placeholder: p } = f;
    const count = counts.get(p.name);
    if (p.ns !== 'steps' || count === undefined || count === 1) continue;
    sink.add(
      at(step.withOrigin(f.path), `${p.text}: step ${p.name} has ${count} jobs, and a steps.ID reference needs exactly one (for one job per job of ${p.name}, use for_each: { step: ${p.name} } and {{ item.FIELD }})`),
    );
  }
}
