import { ListQuery } from '../../api/schemas/index.js';
import type { SandboxCore, WebhookPolicy } from '../core.js';
import { drfErrors } from '../http/drf-errors.js';
import { fieldError, notFound } from '../http/reply.js';
import type { RequestContext, Router } from '../http/router.js';
import { contentTypeOf, type CdnFile } from '../outputs/cdn.js';
import type { Family, Job, ListWindow } from '../store.js';

/** A resource family's routes. */
export type Registrar = (router: Router, core: SandboxCore) => void;

/** Timestamps as DRF renders them in UTC. */
export const iso = (ms: number) => new Date(ms).toISOString();
/** The regen webhook's timestamps carry a numeric offset (spec, Events). */
export const isoOffset = (ms: number) => iso(ms).replace('Z', '+00:00');

export function findJob(core: SandboxCore, family: Family, ctx: RequestContext, model: string): Job {
  const job = core.store.get(family, ctx.params.id ?? '');
  if (!job) throw notFound(model);
  return job;
}

/** Registers an output file of a job; its URL is signed afresh on every read. */
export function putOutput(core: SandboxCore, job: Job, name: string, bytes: () => Buffer): void {
  const path = `${job.family}/${job.id}/${name}`;
  const file: CdnFile = { contentType: contentTypeOf(name), bytes };
  core.cdn.put(path, file);
  job.files[name] = path;
}

/** A signed URL of a preview, thumbnail or other side file: never issued expired. */
export const outputUrl = (core: SandboxCore, job: Job, name: string): string | null =>
  job.files[name] ? core.cdn.url(job.files[name]) : null;

/** A signed URL of an output a client downloads: on a job read it may draw the urlExpired fault. */
export const downloadUrl = (core: SandboxCore, job: Job, name: string): string | null =>
  job.files[name] ? core.cdn.url(job.files[name], true) : null;

/** Fields every job shows the same way. */
export function jobBasics(core: SandboxCore, job: Job) {
  return {
    id: job.id,
    created_at: iso(job.createdAt),
    updated_at: iso(job.updatedAt),
    credits_used: job.creditsUsed,
    failed_reason: (job.fields.failed_reason as string | undefined) ?? '',
    progress: core.engine.progress(job),
  };
}

/**
 * The behaviour notes' webhook payload: id, status, failed_reason and the kind's output field,
 * sent on every status change.
 */
export const subsetWebhook =
  (output: string, view: (job: Job) => Record<string, unknown>): WebhookPolicy =>
  (job) => {
    const shown = view(job);
    return { id: job.id, status: job.status, failed_reason: shown.failed_reason ?? '', [output]: shown[output] ?? null };
  };

/**
 * `ids` (comma separated, 1 to 100 UUIDs) and the creation window of list operations. A timestamp
 * without an offset is UTC (spec, Endpoints note 1).
 */
export function listFilter(query: URLSearchParams): ListWindow {
  const raw = {
    ids: query.has('ids') ? query.get('ids')!.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    created_after: query.get('created_after') ?? undefined,
    created_before: query.get('created_before') ?? undefined,
  };
  const parsed = ListQuery.safeParse(raw, { reportInput: true });
  if (!parsed.success) throw fieldError(drfErrors(parsed.error.issues));
  const after = parsed.data.created_after === undefined ? -Infinity : parseInstant('created_after', parsed.data.created_after);
  const before = parsed.data.created_before === undefined ? Infinity : parseInstant('created_before', parsed.data.created_before);
  const ids = parsed.data.ids && new Set(parsed.data.ids.map((id) => id.toLowerCase()));
  return ids ? { ids, after, before } : { after, before };
}

/** DRF's accepted date-times: a date, optionally `T` or a space and a time, optionally a zone. */
const INSTANT = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?)?(Z|[+-]\d\d:?\d\d)?$/i;

/**
 * An instant in UTC milliseconds. Why explicit UTC: the spec (Endpoints, note 1) says a timestamp
 * without an offset is UTC, and `Date.parse` would read `2026-01-01 11:30:00` in the process's
 * local time zone. So the text is rebuilt as a full ISO string with its zone before parsing.
 */
function parseInstant(field: string, text: string): number {
  const m = INSTANT.exec(text.trim());
  const zone = m?.[5] ? (m[5].toUpperCase() === 'Z' ? 'Z' : `${m[5].slice(0, 3)}:${m[5].slice(-2)}`) : 'Z';
  const ms = m ? Date.parse(`${m[1]}T${m[2] ?? '00:00'}:${m[3] ?? '00'}.${(m[4] ?? '').padEnd(3, '0').slice(0, 3)}${zone}`) : NaN;
  if (Number.isNaN(ms)) {
    const formats = 'YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]';
    throw fieldError({ [field]: [`Datetime has wrong format. Use one of these formats instead: ${formats}.`] });
  }
  return ms;
}
