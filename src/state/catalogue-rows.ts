/**
 * The service's catalogues (its HTML ad styles…) as last read, by the service's address and the
 * catalogue's name: what offline commands check a manifest against, naming the date it was read.
 * A catalogue is the service's truth; this is only the last copy of it seen.
 */
export interface CachedCatalogue {
  service: string;
  name: string;
  fetchedAt: number;
  /** The list as the service gave it. */
  body: unknown;
}

/** A catalogue's row (its body kept as JSON text), or none. */
export function cachedCatalogueOf(service: string, name: string, row: { fetchedAt: number; body: string } | undefined): CachedCatalogue | undefined {
  return row && { service, name, fetchedAt: row.fetchedAt, body: JSON.parse(row.body) as unknown };
}

/**
 * The styles each sent `style_ids: all` job was first planned with, by the key of the request it
 * was expanded from, from the jobs' `planned_items` (JSON text) in the order the jobs were first
 * recorded: how `all` keeps the jobs already sent as they were.
 */
export function plannedItemsOf(texts: Iterable<string>): Map<string, string[][]> {
  const byFrom = new Map<string, string[][]>();
  for (const text of texts) {
    const { from, items } = JSON.parse(text) as { from?: string; items: string[] };
    if (from === undefined) continue;
    const list = byFrom.get(from);
    if (list) list.push(items);
    else byFrom.set(from, [items]);
  }
  return byFrom;
}
