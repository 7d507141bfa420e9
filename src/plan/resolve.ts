import { ReelpipeError } from '../errors.js';
import { asText } from '../manifest/syntax/placeholders.js';
import type { PlannedJob } from './types.js';

/**
 * The runner's half of references: every reference was bound to an upstream job key at plan
 * time, so resolving is only looking up that job's result and substituting the value. A
 * placeholder standing alone keeps the value's type; inside text it becomes text.
 */
export class UnresolvedReferenceError extends ReelpipeError {
  readonly jobKey: string;
  readonly placeholder: string;
  /** result: the upstream job has no result yet (a runner bug); field: its result lacks the field. */
  readonly missing: 'result' | 'field';

  constructor(job: PlannedJob, ref: PlannedJob['refs'][number], missing: 'result' | 'field') {
    super(
      'INTERNAL',
      missing === 'result'
        ? `job ${job.key} needs the result of job ${ref.jobKey} for ${ref.placeholder}, and there is none yet`
        : `job ${job.key}: ${ref.placeholder} is empty in the result of job ${ref.jobKey}`,
    );
    this.jobKey = ref.jobKey;
    this.placeholder = ref.placeholder;
    this.missing = missing;
  }
}

export function resolveJob(
  job: PlannedJob,
  resultOf: (jobKey: string) => Record<string, unknown> | undefined,
): { request: Record<string, unknown>; pathId?: string } {
  if (job.refs.length === 0) return job.pathId === undefined ? { request: job.request } : { request: job.request, pathId: job.pathId };
  const values = new Map<string, unknown>();
  for (const ref of job.refs) {
    const result = resultOf(ref.jobKey);
    if (!result) throw new UnresolvedReferenceError(job, ref, 'result');
    const value = fieldOf(result, ref.field);
    if (value === undefined || value === null || value === '') throw new UnresolvedReferenceError(job, ref, 'field');
    values.set(ref.placeholder, value);
  }
  const request = substitute(job.request, values) as Record<string, unknown>;
  if (job.pathId === undefined) return { request };
  return { request, pathId: asText(substitute(job.pathId, values)) };
}

function fieldOf(result: Record<string, unknown>, field: string): unknown {
  let current: unknown = result;
  for (const segment of field.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function substitute(value: unknown, values: Map<string, unknown>): unknown {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return value;
    if (values.has(value)) return values.get(value);
    let text = value;
    for (const [placeholder, v] of values) text = text.replaceAll(placeholder, asText(v));
    return text;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, values)]));
  }
  return value;
}
