import type Database from 'better-sqlite3';
import { CREDIT_SUMS_SQL, type CreditSums, type Row, type StateTables } from '../copy/state-tables.js';
import { openStateDb } from './open-db.js';

/** An SQLite state file as tables (copy/state-tables.ts): opened, created and migrated if needed. */
export function sqliteTables(path: string): StateTables {
  const db: Database.Database = openStateDb(path);
  return {
    shown: path,
    async *read(table, order, size) {
      const select = db.prepare(`SELECT * FROM "${table}" ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`);
      for (let offset = 0; ; offset += size) {
        const rows = select.all(size, offset) as Row[];
        if (rows.length === 0) return;
        yield rows;
      }
    },
    async count(table) {
      return db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
    },
    async locks() {
      return db.prepare('SELECT name, host, pid FROM locks').all() as { name: string; host: string; pid: number }[];
    },
    async credits() {
      return db.prepare(CREDIT_SUMS_SQL).get() as CreditSums;
    },
    async fill(fill) {
      // One transaction across the copy's awaits: this connection is the copy's alone.
      db.exec('BEGIN IMMEDIATE');
      try {
        db.prepare('DELETE FROM meta').run();
        await fill(async (table, rows) => {
          if (rows.length === 0) return;
          const columns = Object.keys(rows[0]!);
          const insert = db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
          for (const row of rows) insert.run(...columns.map((c) => row[c]));
        });
        db.exec('COMMIT');
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
