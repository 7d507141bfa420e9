import { hash } from 'node:crypto';
import type { JobRef } from './types.js';

/**
 * Job identity. A key hashes what the job will send — its kind, mode, path id, normalised body
 * (keys sorted) and the upstream jobs its references bind to — and never its row number, so
 * reordering a CSV or adding rows leaves every other job's key unchanged. The step id prefixes the
 * key so a glance at a key says where it comes from.
 */
export const KEY_HEX_LENGTH = 12;

export interface KeyInput {
  step: string;
  kind: string;
  mode?: string;
  pathId?: string;
  request: Record<string, unknown>;
  refs: readonly JobRef[];
}

export function jobKey(input: KeyInput): string {
  const bindings =
    input.refs.length === 0 ? [] : input.refs.map((r) => [r.placeholder, r.jobKey]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const material = canonicalJson([input.kind, input.mode ?? null, input.pathId ?? null, input.request, bindings]);
  // One-shot hash (Node ≥ 20.12): a Hash object per job cost three times the hashing at 10,000 jobs.
  return `${input.step}:${hash('sha256', material).slice(0, KEY_HEX_LENGTH)}`;
}

/** JSON with object keys sorted at every depth: equal requests give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  let out = '';
  if (Array.isArray(value)) {
    for (const item of value) out += (out ? ',' : '') + canonicalJson(item);
    return `[${out}]`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(record[key])}`;
  }
  return `{${out}}`;
}
