import type Database from 'better-sqlite3';
import { statement } from './statements.js';

/**
 * Event types of the append-only log, `subject:verb`. Every status change and every creation
 * answer is one row; a poll answer is logged when it changes something (a 2,000-job run polls
 * thousands of times and an unchanged answer says nothing new).
 */
export type EventType =
  | 'run:started'
  | 'run:finished'
  | 'plan:synced'
  | 'job:intent'
  | 'job:answered'
  | 'job:rejected'
  | 'job:not-created'
  | 'job:in-doubt'
  | 'job:reconciled'
  | 'job:delivered'
  | 'job:observed'
  | 'job:resolved'
  | 'job:status'
  | 'job:done'
  | 'job:failed'
  | 'job:downloaded'
  | 'job:output-missing'
  | 'job:read-failed'
  | 'job:retry'
  | 'job:hook-failed'
  | 'job:hooks-retry'
  | 'run:notified'
  | 'job:error'
  | 'job:forgotten'
  | 'job:file-moved'
  | 'budget:stop'
  | 'account:stop'
  | 'account:set'
  | 'account:slot-freed'
  | 'lock:acquired'
  | 'lock:broken'
  | 'lock:lost'
  | 'lock:released'
  | 'lock:forced'
  | 'run:joined'
  | 'run:left'
  | 'manifest:adopted'
  | 'manifest:moved';

export interface EventRow {
  id: number;
  at: number;
  runId: number | null;
  jobKey: string | null;
  type: EventType;
  data: Record<string, unknown> | null;
}

/**
 * Keys whose values never reach the log, whatever a caller passes: the service credentials and
 * anything that looks like them. Policy: secrets must not appear in state, reports or messages.
 */
const SECRET_KEY = /^(x-)?api[-_]?(id|key)$|authorization|secret|password|token/i;

export function scrubSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrubSecrets(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    out[key] = SECRET_KEY.test(key) ? '[redacted]' : scrubSecrets(inner, depth + 1);
  }
  return out;
}

export function appendEvent(
  db: Database.Database,
  at: number,
  type: EventType,
  where: { runId?: number | null; jobKey?: string | null; manifest?: string | null },
  data?: Record<string, unknown>,
): void {
  statement(db, 'INSERT INTO events (at, run_id, manifest, job_key, type, data) VALUES (?, ?, ?, ?, ?, ?)').run(
    at,
    where.runId ?? null,
    where.manifest ?? null,
    where.jobKey ?? null,
    type,
    data === undefined ? null : JSON.stringify(scrubSecrets(data)),
  );
}

export function readEvents(db: Database.Database, filter: { jobKey?: string; type?: EventType } = {}): EventRow[] {
  const rows = db
    .prepare(
      `SELECT id, at, run_id, job_key, type, data FROM events
       WHERE (@jobKey IS NULL OR job_key = @jobKey) AND (@type IS NULL OR type = @type) ORDER BY id`,
    )
    .all({ jobKey: filter.jobKey ?? null, type: filter.type ?? null }) as {
    id: number;
    at: number;
    run_id: number | null;
    job_key: string | null;
    type: EventType;
    data: string | null;
  }[];
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    runId: r.run_id,
    jobKey: r.job_key,
    type: r.type,
    data: r.data === null ? null : (JSON.parse(r.data) as Record<string, unknown>),
  }));
}
