import { ATTEMPT_RECORD_COLUMNS, attemptRecordOf, type AttemptRecord, type AttemptValues } from '../attempt-records.js';
import { byJob } from '../by-job.js';
import { earlierRequests, earlierVersions, newestEarlier, type SlotValues } from '../earlier-versions.js';
import { anyPlaces, outlinePlaces, placesOf, placesWanted, placesWantedOfKeys } from '../facts-places.js';
import { emptyFacts, FACTS_COLUMNS, factsRowsOf, RECORDED_OUTPUT_COLUMNS, recordedOutputsOf, type FactsRead, type FactsValues, type FactsWanted, type OutputValues } from '../facts-rows.js';
import { hookRunOf, hookRunsByJob, type RawHookRun } from '../hook-run-rows.js';
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
  if (wanted.part) return 'outline' in wanted.part ? readPgOutline(tx, manifest, planJobs, wanted.money) : readPgWindow(tx, manifest, wanted.part.keys);
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

/** An outline (FactsPart), as SQLite's (sqlite/facts-reads.ts): the rows' keys alone say whether their places are read. */
async function readPgOutline(tx: Tx, manifest: string, planJobs: PlanJobs, money: boolean): Promise<FactsRead> {
  const scope = planScope(planJobs);
  const keys = await tx.values<[string]>('SELECT key FROM jobs WHERE manifest = $1', [manifest]);
  const places = placesWantedOfKeys(keys.map(([key]) => key), scope);
  const [finish] = await tx.query<RawHookRun>("SELECT * FROM hook_runs WHERE manifest = $1 AND hook = 'on_finish' ORDER BY id DESC LIMIT 1", [manifest]);
  return {
    ...emptyFacts(), ...outlinePlaces(anyPlaces(places) ? await readPgPlaces(tx, manifest) : [], places, scope, planJobs),
    money: money ? await readPgMoney(tx, manifest, scope) : null, lastFinish: finish ? hookRunOf(finish) : null,
  };
}

/** A window (FactsPart), as SQLite's: each table read for `keys` alone, a job's lists in the order the whole read gives them. */
async function readPgWindow(tx: Tx, manifest: string, keys: readonly string[]): Promise<FactsRead> {
  const values = <V extends unknown[]>(sql: string) => tx.values<V>(sql, [manifest, keys]);
  const IN_KEYS = '= ANY($2::text[])';
  // Through each table's (manifest, job) index, for this read's transaction alone. Why: a window is
  // a few percent of a big manifest, and PostgreSQL scanned each table whole for it instead (81 ms
  // a window of 2,000 of 100,000 files, 37 through the index), a cost that grows with the manifest
  // for every window: a report of 1,000,000 jobs would read every table 500 times.
  await tx.query('SET LOCAL enable_seqscan = off');
  // Items (HTML ads) and hooks are rare: their tables are asked first whether the manifest has any at all.
  const [any] = await tx.query<{ items: boolean; hooks: boolean }>(`SELECT EXISTS (SELECT 1 FROM job_items WHERE manifest = $1) AS items,
    EXISTS (SELECT 1 FROM hook_runs WHERE manifest = $1 AND hook = 'on_output') AS hooks`, [manifest]);
  const rows = await values<FactsValues>(`SELECT ${FACTS_COLUMNS} FROM jobs WHERE manifest = $1 AND key ${IN_KEYS}`);
  const outputs = await values<OutputValues>(`SELECT ${RECORDED_OUTPUT_COLUMNS} FROM outputs
    WHERE manifest = $1 AND job_key ${IN_KEYS} AND path IS NOT NULL AND sha256 IS NOT NULL ORDER BY job_key COLLATE "C", idx`);
  const items = any?.items ? await values<ItemValues>(`SELECT ${ITEM_COLUMNS} FROM job_items WHERE manifest = $1 AND job_key ${IN_KEYS} ORDER BY job_key COLLATE "C", idx`) : [];
  const attempts = await values<AttemptValues>(`SELECT ${ATTEMPT_RECORD_COLUMNS} FROM attempts a LEFT JOIN charges c ON c.attempt_id = a.id
    WHERE a.manifest = $1 AND a.job_key ${IN_KEYS} ORDER BY a.id`);
  const hooks = any?.hooks ? await tx.query<RawHookRun>(`SELECT * FROM hook_runs WHERE id IN (SELECT max(id) FROM hook_runs
    WHERE manifest = $1 AND hook = 'on_output' AND job_key ${IN_KEYS} GROUP BY job_key, output_idx) ORDER BY job_key COLLATE "C", output_idx`, [manifest, keys]) : [];
  return {
    ...emptyFacts(), rows: factsRowsOf(rows), outputs: recordedOutputsOf(outputs), items: byJob(items, (v) => [v[0], itemOf(v)]),
    attempts: byJob(attempts, (v) => [v[0], attemptRecordOf(v)]), hooks: hookRunsByJob(hooks),
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
