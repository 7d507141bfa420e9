import { cachedCatalogueOf, plannedItemsOf, type CachedCatalogue } from '../catalogue-rows.js';
import type { Tx } from './pg-connection.js';

/** The service's catalogues kept in the state, and the items `all` requests were expanded to (catalogue-rows.ts), on PostgreSQL. */

export async function readPgCatalogue(tx: Tx, service: string, name: string): Promise<CachedCatalogue | undefined> {
  const [row] = await tx.query<{ fetchedAt: number; body: string }>('SELECT fetched_at AS "fetchedAt", body FROM catalogues WHERE service = $1 AND name = $2', [service, name]);
  return cachedCatalogueOf(service, name, row);
}

/** Keeps `body` as the service's catalogue `name`, read at `at` (replacing the copy before). */
export async function writePgCatalogue(tx: Tx, service: string, name: string, body: unknown, at: number): Promise<void> {
  await tx.query(`INSERT INTO catalogues (service, name, fetched_at, body) VALUES ($1, $2, $3, $4)
    ON CONFLICT (service, name) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body`, [service, name, at, JSON.stringify(body)]);
}

/**
 * The styles each sent `style_ids: all` job of `manifest` was first planned with, in the order
 * the jobs were first recorded; jobs still planned (never sent) are left out: theirs may change.
 * PostgreSQL keeps no insertion order (SQLite's rowid): jobs recorded together (one created_at)
 * follow their place in the plan (plan_order), which is their order of recording unless a later
 * plan moved them, then their key.
 */
export async function readPgPlannedItems(tx: Tx, manifest: string): Promise<Map<string, string[][]>> {
  const rows = await tx.query<{ planned_items: string }>(`SELECT planned_items FROM jobs
    WHERE manifest = $1 AND planned_items IS NOT NULL AND status <> 'planned' ORDER BY created_at, plan_order NULLS FIRST, key COLLATE "C"`, [manifest]);
  return plannedItemsOf(rows.map((row) => row.planned_items));
}
