import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postgresMigrations, PG_SCHEMA_VERSION } from '../../../src/state/postgres/pg-migrate.js';
import { openStateDb, SCHEMA_VERSION } from '../../../src/state/index.js';
import { freshPgDatabase, type PgDatabase } from '../../helpers/pg-database.js';

/**
 * Both stores hold the same schema: every table with the same columns (name, type, NOT NULL,
 * primary key) and the same indexes (name, columns — an expression's as '' —, unique, partial) — what lets one mapper read
 * both stores' rows, `state copy` move a state between them, and the conformance suite compare
 * them exactly. Types compare by family: SQLite's INTEGER is PostgreSQL's bigint, REAL its double
 * precision, TEXT its text.
 */
const FAMILY: Record<string, string> = { integer: 'integer', bigint: 'integer', real: 'real', 'double precision': 'real', text: 'text' };

interface Column { table: string; column: string; type: string; notNull: boolean; primaryKey: boolean }
interface Index { name: string; table: string; columns: string; unique: boolean; partial: string | null }

let dir: string;
let database: PgDatabase;
let client: pg.Client;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-schema-'));
  database = await freshPgDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

function sqliteSchema(): { columns: Column[]; indexes: Index[] } {
  const db = openStateDb(join(dir, 'state.db'));
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    const columns = tables.flatMap((table) =>
      (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string; type: string; notnull: number; pk: number }[]).map((c) => ({
        table, column: c.name, type: FAMILY[c.type.toLowerCase()] ?? c.type, notNull: c.notnull === 1 || c.pk > 0, primaryKey: c.pk > 0,
      })),
    );
    const indexes = (db.prepare("SELECT name, tbl_name AS tbl, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string; tbl: string; sql: string }[])
      .map((i) => ({
        name: i.name,
        table: i.tbl.replace(/"/g, ''),
        columns: (db.prepare(`PRAGMA index_info("${i.name}")`).all() as { name: string }[]).map((c) => c.name).join(', '),
        unique: /^CREATE UNIQUE/i.test(i.sql),
        partial: /WHERE (.*)$/is.exec(i.sql)?.[1]?.trim().toLowerCase() ?? null,
      }));
    return { columns: sortColumns(columns), indexes };
  } finally {
    db.close();
  }
}

async function postgresSchema(): Promise<{ columns: Column[]; indexes: Index[] }> {
  const columns = await client.query<{ table: string; column: string; type: string; not_null: boolean; primary_key: boolean }>(`
    SELECT c.table_name AS table, c.column_name AS column, c.data_type AS type, c.is_nullable = 'NO' AS not_null,
      EXISTS (SELECT 1 FROM information_schema.key_column_usage k JOIN information_schema.table_constraints t
        ON t.constraint_name = k.constraint_name AND t.table_name = k.table_name
        WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name AND k.column_name = c.column_name) AS primary_key
    FROM information_schema.columns c WHERE c.table_schema = 'public'`);
  const indexes = await client.query<{ name: string; table: string; columns: string; unique: boolean; partial: string | null }>(`
    SELECT i.relname AS name, t.relname AS table,
      (SELECT string_agg(coalesce(a.attname, ''), ', ' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n)
        LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns,
      x.indisunique AS unique, pg_get_expr(x.indpred, x.indrelid) AS partial
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND NOT x.indisprimary ORDER BY i.relname`);
  return {
    columns: sortColumns(columns.rows.map((c) => ({ table: c.table, column: c.column, type: FAMILY[c.type] ?? c.type, notNull: c.not_null, primaryKey: c.primary_key }))),
    indexes: indexes.rows.map((i) => ({ ...i, partial: i.partial === null ? null : inAsSqliteSaysIt(i.partial.replace(/[()]|::text/g, '').toLowerCase()) })),
  };
}

/** PostgreSQL keeps `x IN (a, b)` as `x = ANY (ARRAY[a, b])`: said back as written. */
const inAsSqliteSaysIt = (condition: string) => condition.replace(/ = any array\[([^\]]*)\]/g, ' in ($1)');

function sortColumns(columns: Column[]): Column[] {
  return columns.sort((a, b) => a.table.localeCompare(b.table) || a.column.localeCompare(b.column));
}

test('both stores are at the same schema version, and every migration after the baseline has its PostgreSQL text', () => {
  expect(PG_SCHEMA_VERSION).toBe(SCHEMA_VERSION);
  expect(() => postgresMigrations()).not.toThrow();
});

test('every table has the same columns, types, NOT NULLs and primary keys in both stores', async () => {
  const sqlite = sqliteSchema().columns;
  expect(sqlite.length).toBeGreaterThan(100);
  expect((await postgresSchema()).columns).toEqual(sqlite);
});

test('every index has the same name, columns, uniqueness and condition in both stores', async () => {
  const sqlite = sqliteSchema().indexes;
  expect(sqlite.length).toBeGreaterThan(10);
  expect((await postgresSchema()).indexes).toEqual(sqlite);
});
