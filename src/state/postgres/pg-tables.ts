import { CREDIT_SUMS_SQL, COPIED_TABLES, type CreditSums, type Row, type StateTables } from '../copy/state-tables.js';
import { openMigrated } from './pg-migrate.js';

/** A PostgreSQL state as tables (copy/state-tables.ts): connected and migrated. */
export async function pgTables(location: string): Promise<StateTables> {
  const db = await openMigrated(location);
  return {
    shown: db.shown,
    async *read(table, order, size) {
      for (let offset = 0; ; offset += size) {
        const rows = await db.query<Row>(`SELECT * FROM "${table}" ORDER BY ${order.join(', ')} LIMIT $1 OFFSET $2`, [size, offset]);
        if (rows.length === 0) return;
        yield rows;
      }
    },
    async count(table) {
      const [row] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`);
      return row!.n;
    },
    async locks() {
      return db.query<{ name: string; host: string; pid: number }>('SELECT name, host, pid FROM locks');
    },
    async credits() {
      const [sums] = await db.query<CreditSums>(CREDIT_SUMS_SQL);
      return sums!;
    },
    async fill(fill) {
      await db.tx(async (tx) => {
        await tx.query('DELETE FROM meta');
        await fill(async (table, rows) => {
          if (rows.length === 0) return;
          // One statement a chunk: the rows travel as JSON and are read back as the table's own rows.
          await tx.query(`INSERT INTO "${table}" SELECT * FROM json_populate_recordset(NULL::"${table}", $1::json)`, [JSON.stringify(rows)]);
        });
        // Ids carried over: the identities go on after the highest, never handing one out twice.
        for (const { table, order } of COPIED_TABLES) {
          if (order.length !== 1 || order[0] !== 'id') continue;
          await tx.query(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM "${table}"), false)`);
        }
      }, { durable: true, doing: 'copying the state' });
    },
    close: () => db.close(),
  };
}
