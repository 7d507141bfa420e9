import { ATTEMPT_RECORD_COLUMNS, attemptRecordOf, type AttemptRecord, type AttemptValues } from '../attempt-records.js';
import { byJob } from '../by-job.js';
import { earlierRequests, earlierVersions, newestEarlier, type SlotValues } from '../earlier-versions.js';
import { anyPlaces, placesOf, placesWanted } from '../facts-places.js';
import { FACTS_COLUMNS, factsRowsOf, RECORDED_OUTPUT_COLUMNS, recordedOutputsOf, type FactsRead, type FactsValues, type FactsWanted, type OutputValues } from '../facts-rows.js';
import { ITEM_COLUMNS, itemOf, type ItemValues, type JobItemRow } from '../item-rows.js';
import { planScope, type PlanJobs, type PlanScope } from '../plan-scope.js';
import type { Tx } from './pg-connection.js';
import { readPgMoney } from './pg-money.js';

/**
 * The facts of a manifest's jobs on PostgreSQL (sqlite/facts-reads.ts is SQLite's): the rows, files,
 * money, items, earlier versions and attempts `status`, the report and `plan --json` show, read in
 * the reader's one snapshot so they agree. Text is ordered byte-wise (COLLATE "C"), as SQLite orders it.
 */
export async function readPgFacts(tx: Tx, manifest: string, planJobs: PlanJobs, wanted: FactsWanted): Promise<FactsRead> {
  const scope = planScope(planJobs);
  const rows = wanted.rows ? factsRowsOf(await tx.values<FactsValues>(`SELECT ${FACTS_COLUMNS} FROM jobs WHERE manifest = $1`, [manifest])) : null;
  // The rows' places only when they say something (facts-places.ts).
  const places = placesWanted(rows ?? (await countJobs(tx, manifest)), scope);
  const { earlier, slots } = placesOf(anyPlaces(places) ? await readPgPlaces(tx, manifest) : [], places, scope, planJobs);
  const outputs = await tx.values<OutputValues>(`SELECT ${RECORDED_OUTPUT_COLUMNS} FROM outputs
    WHERE manifest = $1 AND path IS NOT NULL AND sha256 IS NOT NULL ORDER BY job_key COLLATE "C", idx`, [manifest]);
  return {
    rows, slots, outputs: recordedOutputsOf(outputs), money: wanted.money ? await readPgMoney(tx, manifest, scope) : null, items: await itemsByJob(tx, manifest),
    earlier, attempts: await attemptsByJob(tx, manifest),
  };
}

async function countJobs(tx: Tx, manifest: string): Promise<number> {
  const [row] = await tx.query<{ n: number }>('SELECT count(*) AS n FROM jobs WHERE manifest = $1', [manifest]);
  return Number(row?.n ?? 0);
}

/** The key and place of each of the manifest's rows, oldest first (created_at, then key). */
const readPgPlaces = (tx: Tx, manifest: string) => tx.values<SlotValues>('SELECT key, step, output_name FROM jobs WHERE manifest = $1 ORDER BY created_at, key COLLATE "C"', [manifest]);

/** The earlier versions of each job of a plan (earlier-versions.ts), from the manifest's rows oldest first. */
async function readPgEarlierVersions(tx: Tx, manifest: string, scope: PlanScope, planJobs: PlanJobs): Promise<Map<string, string[]>> {
  return earlierVersions(await readPgPlaces(tx, manifest), scope, planJobs);
}

/** The newest earlier version of each job of a plan that has one, with the request it holds (one statement for them all). */
export async function readPgEarlierRequests(tx: Tx, manifest: string, planJobs: PlanJobs): Promise<Map<string, { key: string; request: Record<string, unknown> }>> {
  const earlier = await readPgEarlierVersions(tx, manifest, planScope(planJobs), planJobs);
  if (earlier.size === 0) return new Map();
  const rows = await tx.query<{ key: string; request: string }>('SELECT key, request FROM jobs WHERE manifest = $1 AND key = ANY($2::text[])', [manifest, newestEarlier(earlier)]);
  const requests = new Map(rows.map((row) => [row.key, row.request]));
  return earlierRequests(earlier, (key) => requests.get(key));
}

async function itemsByJob(tx: Tx, manifest: string): Promise<Map<string, JobItemRow[]>> {
  const rows = await tx.values<ItemValues>(`SELECT ${ITEM_COLUMNS} FROM job_items WHERE manifest = $1 ORDER BY job_key COLLATE "C", idx`, [manifest]);
  return byJob(rows, (values) => [values[0], itemOf(values)]);
}

async function attemptsByJob(tx: Tx, manifest: string): Promise<Map<string, AttemptRecord[]>> {
  const rows = await tx.values<AttemptValues>(`SELECT ${ATTEMPT_RECORD_COLUMNS} FROM attempts a LEFT JOIN charges c ON c.attempt_id = a.id
    WHERE a.manifest = $1 ORDER BY a.id`, [manifest]);
  return byJob(rows, (values) => [values[0], attemptRecordOf(values)]);
}
