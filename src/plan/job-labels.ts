import type { ManifestStep, StepInstance } from '../manifest/index.js';
import type { RowSet } from '../manifest/read/rows.js';
import { PackedStrings } from '../util/packed-strings.js';

/**
 * Job labels: a name a person recognises, shown beside the key in every view (plan, summary,
 * status, report, results files). Derived from the plan alone, by the first rule that applies:
 *  1. the step's `name:` template, rendered (`short-TR2-BLK`);
 *  2. rows: STEP · FILE:LINE · KEY, the row's origin and its key column's value
 *     (`shorts · scripts.csv:25 · ALP-GRE-24`), then the matrix values if any;
 *  3. a matrix alone: STEP · its values (`clones · de · 9x16`);
 *  4. otherwise the step id (a step of one job).
 * A `for_each: { step }` job puts its upstream job's label after the step id. Two jobs that would
 * share a label get ` (2)`, ` (3)`… in plan order, so a label names one job in its manifest.
 */
const SEP = ' · ';

/**
 * Column names that usually identify a row, tried first. Why: a SKU or id is what a user looks
 * for in a list; a free-text column (a script) makes a poor name even when its values are unique.
 */
const KEY_NAMES = /^(id|key|sku|slug|code|ref|handle|name|title)$/i;
/** A longer value is prose, not a key. */
const MAX_KEY_CHARS = 40;

/** What a job of a `for_each: { step }` step is made over: a job of that step, by its key and label. */
export interface Upstream {
  key: string;
  label: string;
}

export type Labeller = (instance: StepInstance, origin: string | undefined, upstream: Upstream | undefined) => string;

/** The labelling rule of one step (its key column chosen once, only when rule 2 needs it). */
export function labellerFor(step: ManifestStep): Labeller {
  if (step.nameTemplate) return (instance) => instance.name || step.id;
  const key = step.rows ? keyColumn(step.rows) : undefined;
  return (instance, origin, upstream) => {
    const parts = [step.id];
    if (upstream) parts.push(upstream.label);
    if (origin) parts.push(origin);
    const value = key === undefined ? undefined : instance.row?.[key];
    if (value !== undefined && value !== null && value !== '') parts.push(String(value));
    if (instance.matrix) for (const v of Object.values(instance.matrix)) parts.push(String(v));
    return parts.join(SEP);
  };
}

/** The column whose values tell every row apart: a key-like name first, then any, in header order. */
export function keyColumn(rows: RowSet): string | undefined {
  const all = rows.columns ?? Object.keys(rows.count > 0 ? rows.row(0) : {});
  const ordered = [...all.filter((c) => KEY_NAMES.test(c)), ...all.filter((c) => !KEY_NAMES.test(c))];
  return ordered.find((column) => identifies(rows, column));
}

/** Whether every row has a short value of its own in `column` (the values seen held as one packed set, not a Set of strings). */
function identifies(rows: RowSet, column: string): boolean {
  const seen = new PackedStrings();
  for (let i = 0; i < rows.count; i++) {
    const value = rows.row(i)[column];
    if (value === undefined || value === null || value === '' || typeof value === 'object') return false;
    const text = String(value);
    if (text.length > MAX_KEY_CHARS || seen.find(text) >= 0) return false;
    seen.add(text);
  }
  return rows.count > 0;
}
