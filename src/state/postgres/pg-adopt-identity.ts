import { systemClock, type Clock } from '../../util/clock.js';
import { adoptedEvent, adoptionSource, distinctManifestsSql, refusalOf, type AdoptionFacts } from '../adopt-sources.js';
import { scrubSecrets } from '../sqlite/events.js';
import type { Adoption } from '../state-reader.js';
import type { Tx } from './pg-connection.js';
import { readPg, writePg } from './pg-reads-open.js';

/**
 * StateReader.adoptIdentity on PostgreSQL: the rows an older reelpipe keyed by a manifest's real
 * path re-keyed to its identity, in one transaction — in the two phases SQLite's takes
 * (sqlite/adopt-identity.ts says why), by the rules of adopt-sources.ts. A database with no schema
 * has nothing to re-key and is left as it is. Two processes adopting at once queue on one advisory
 * lock, and the second finds nothing left to move. Every table with a `manifest` column is
 * re-keyed in ONE statement: the foreign keys to jobs (not deferrable) are checked at its end,
 * when parents and children carry the new key alike.
 */
export async function adoptPgIdentity(location: string, identity: string, path: string, identityOf: (key: string) => Promise<string | undefined>, clock: Clock): Promise<Adoption> {
  const keys = await readPg(location, [], (tx) => keyedManifests(tx, identity), 'as-is');
  if (keys.length === 0) return { adopted: null };
  const chosen = await adoptionSource(keys, identity, path, identityOf);
  if (!('source' in chosen)) return chosen;
  const { source } = chosen;
  const refused = await readPg(location, undefined, (tx) => refusal(tx, identity, source, clock), 'as-is');
  if (refused) return refused;
  return writePg(location, async (tx): Promise<Adoption> => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [ADOPTION_LOCK]);
    const [holds] = await tx.query('SELECT 1 FROM jobs WHERE manifest = $1 UNION ALL SELECT 1 FROM runs WHERE manifest = $1 LIMIT 1', [source]);
    if (!holds) return { adopted: null };
    const again = await refusal(tx, identity, source, clock);
    if (again) return again;
    const moved = await rekey(tx, identity, source);
    const [held] = await tx.query('SELECT 1 FROM locks WHERE name = $1', [identity]);
    const lock = held
      ? await tx.query('DELETE FROM locks WHERE name = $1 RETURNING name', [source])
      : await tx.query('UPDATE locks SET name = $2 WHERE name = $1 RETURNING name', [source, identity]);
    const data = adoptedEvent(source, moved, { changed: lock.length > 0, held: held !== undefined });
    await tx.query("INSERT INTO events (at, run_id, manifest, job_key, type, data) VALUES ($1, NULL, $2, NULL, 'manifest:adopted', $3)",
      [clock.now(), identity, JSON.stringify(scrubSecrets(data))]);
    return { adopted: { path: source, ...moved } };
  });
}

/** Any 64-bit number of our own: the advisory lock adoptions take, one at a time. */
const ADOPTION_LOCK = 0x7265656c_6164;

/** The manifests other than `identity` that hold jobs or runs (every other row's key belongs to one of those). */
async function keyedManifests(tx: Tx, identity: string): Promise<string[]> {
  const keys = new Set<string>();
  for (const table of ['jobs', 'runs'] as const) for (const row of await tx.query<{ v: string }>(distinctManifestsSql(table))) keys.add(row.v);
  keys.delete(identity);
  return [...keys];
}

/** Why the rows of `source` must not become `identity`'s now (adopt-sources.ts refusalOf), or undefined. */
async function refusal(tx: Tx, identity: string, source: string, clock: Clock): Promise<Adoption | undefined> {
  const [lock] = await tx.query<NonNullable<AdoptionFacts['lock']>>('SELECT host, pid, heartbeat_at FROM locks WHERE name = $1', [source]);
  const shared = await tx.query<{ key: string }>(`SELECT key FROM jobs WHERE manifest = $1 AND key IN (SELECT key FROM jobs WHERE manifest = $2)
    ORDER BY key COLLATE "C" LIMIT 5`, [source, identity]);
  const [last] = shared.length === 0 ? [] : await tx.query<{ manifest_path: string }>(
    'SELECT manifest_path FROM runs WHERE manifest = $1 AND manifest_path IS NOT NULL ORDER BY id DESC LIMIT 1', [identity]);
  return refusalOf(source, { lock, shared: shared.map((row) => row.key), identityPath: last?.manifest_path ?? null }, await nowFor(tx, clock));
}

/**
 * The time a lock's heartbeat is judged against: the database's clock, which the PostgreSQL
 * store's heartbeats are written by (pg-lock.ts), unless a test gave its own clock.
 */
async function nowFor(tx: Tx, clock: Clock): Promise<number> {
  if (clock !== systemClock) return clock.now();
  const [row] = await tx.query<{ now: number }>('SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now');
  return row!.now;
}

/** Every table with a `manifest` column re-keyed from `source` to `identity`; its runs keep the path they ran from. */
async function rekey(tx: Tx, identity: string, source: string): Promise<{ jobs: number; runs: number }> {
  const tables = (await tx.query<{ table_name: string }>(`SELECT table_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'manifest' ORDER BY table_name`)).map((row) => row.table_name).filter((t) => /^[a-z_]+$/.test(t));
  const ctes = tables.map((table) => `moved_${table} AS (UPDATE ${table} SET manifest = $1${table === 'runs' ? ', manifest_path = coalesce(manifest_path, $2)' : ''}
    WHERE manifest = $2 RETURNING 1)`);
  const [moved] = await tx.query<{ jobs: number; runs: number }>(`WITH ${ctes.join(',\n')}
    SELECT (SELECT count(*) FROM moved_jobs) AS jobs, (SELECT count(*) FROM moved_runs) AS runs`, [identity, source]);
  return moved!;
}
