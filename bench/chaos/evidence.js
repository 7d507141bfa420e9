// Everything the invariants are judged on, read straight from the sources — the state database
// (SQLite read-only, or PostgreSQL through node-postgres, by the same SQL), the outputs folder, and
// the sandbox's own introspection — never through reelpipe's modules, so a bug there cannot hide
// itself here.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { isPostgres } from '../lib/postgres-server.js';
import { introspect } from './sandbox-process.js';

/** Sandbox statuses after which a job's charge is final. */
const FINAL = new Set(['done', 'failed', 'rejected']);

/** The same statements on both stores: their tables and columns are the same (src/state/postgres/pg-schema.ts). */
const STATE_READS = {
  rows: 'SELECT key, kind, status, remote_id, credits_used, credits_prior, credits_reserved, request FROM jobs',
  attempts: 'SELECT job_key, state, remote_id, request FROM attempts ORDER BY id',
  outputs: 'SELECT job_key, idx, path, bytes, sha256 FROM outputs',
};

/** Reads the state's jobs, attempts and outputs: a SQLite file, or a `postgres://` database. */
export async function readState(location) {
  if (isPostgres(location)) return readPgState(location);
  const db = new Database(location, { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(Object.entries(STATE_READS).map(([name, sql]) => [name, db.prepare(sql).all()]));
  } finally {
    db.close();
  }
}

/** BIGINT (int8) as a number, as SQLite gives it: sizes and indexes compare with ===. */
const INT8_AS_NUMBER = { getTypeParser: (oid, format) => (oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)) };

/** The three reads in one REPEATABLE READ, READ ONLY snapshot: one moment of the state, as SQLite's file gives. */
async function readPgState(url) {
  const client = new pg.Client({ connectionString: url, types: INT8_AS_NUMBER, application_name: 'reelpipe-chaos' });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const state = {};
    for (const [name, sql] of Object.entries(STATE_READS)) state[name] = (await client.query(sql)).rows;
    await client.query('COMMIT');
    return state;
  } finally {
    await client.end();
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
