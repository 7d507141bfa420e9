import { readFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { ListedPlan } from '../../src/plan/index.js';
import { writeRunReport } from '../../src/report/write-report.js';
import { shownLocation } from '../../src/state/index.js';
import { freshPgDatabase, type PgDatabase } from '../helpers/pg-database.js';
import { recordedNights } from './fixtures/recorded-nights.js';

/** One state, two stores: the report of the same nights on SQLite and on PostgreSQL is the same, file for file. */
const databases: PgDatabase[] = [];
let reports = 0;
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** The three files of `plan`'s report from the state at `location`, its name in the header put aside (a path, or an address). */
async function report(plan: ListedPlan, location: string, windowJobs: number): Promise<string[]> {
  const written = await writeRunReport({ plan, statePath: location, now: Date.UTC(2026, 0, 2), windowJobs });
  const texts = [written.html, written.csv, written.json].map((file) => readFileSync(file, 'utf8').replaceAll(shownLocation(location), 'STATE'));
  renameSync(dirname(written.html), `${dirname(written.html)}-${++reports}`);
  return texts;
}

describe('the report of one state on SQLite and on PostgreSQL', () => {
  test.each([1, 4])('is the same, file for file, read %i jobs at a time', async (windowJobs) => {
    const db = await freshPgDatabase();
    databases.push(db);
    const sqlite = await recordedNights();
    await recordedNights(db.url);
    const [html, ...results] = await report(sqlite.plan, db.url, windowJobs);
    expect(html).toContain('state STATE');
    expect([html, ...results]).toEqual(await report(sqlite.plan, sqlite.location, windowJobs));
    expect(results[0]).toContain(',changed,');
  });
});
