// Everything the invariants are judged on, read straight from the sources — the state database
// (SQLite, read-only), the outputs folder, and the sandbox's own introspection — never through
// reelpipe's modules, so a bug there cannot hide itself here.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { introspect } from './sandbox-process.js';

/** Sandbox statuses after which a job's charge is final. */
const FINAL = new Set(['done', 'failed', 'rejected']);

/** Reads the state database's jobs, attempts and outputs. */
export function readState(statePath) {
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  try {
    return {
      rows: db.prepare('SELECT key, kind, status, remote_id, credits_used, credits_prior, credits_reserved, request FROM jobs').all(),
      attempts: db.prepare('SELECT job_key, state, remote_id, request FROM attempts ORDER BY id').all(),
      outputs: db.prepare('SELECT job_key, idx, path, bytes, sha256 FROM outputs').all(),
    };
  } finally {
    db.close();
  }
}

/**
 * The sandbox's stats and jobs, once every job it made has a final status (a job created by an
 * answer the runner lost renders on unseen; its charge shows only once processing started).
 */
export async function readService(url, { waitMs = 60_000 } = {}) {
  const deadline = Date.now() + waitMs;
  let jobs = await introspect(url, 'jobs');
  while (jobs.some((job) => !FINAL.has(job.status)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    jobs = await introspect(url, 'jobs');
  }
  return { stats: await introspect(url, 'stats'), jobs };
}

/** Every file under `dir`, relative to it, with `/` separators. */
export function listFiles(dir, prefix = '') {
  let names;
  try {
    names = readdirSync(path.join(dir, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  return names.flatMap((entry) => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? listFiles(dir, rel) : [rel];
  });
}

/** sha256 and length of a file, or undefined when it cannot be read. */
export function digestOf(file) {
  try {
    const data = readFileSync(file);
    return { sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length };
  } catch {
    return undefined;
  }
}

/** A request body as a comparable string: keys sorted, webhook_url (a per-run address) left out. */
export function canonicalBody(body) {
  const sort = (value) => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sort(value[k])]));
    }
    return value;
  };
  const { webhook_url: _ignored, ...rest } = typeof body === 'string' ? JSON.parse(body) : body;
  return JSON.stringify(sort(rest));
}
