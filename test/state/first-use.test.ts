import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MIGRATIONS } from '../../src/state/index.js';

/**
 * First use of a state database by several processes at once (cron starting the runs of several
 * manifests): each child process opens the same, not yet existing database at one agreed instant,
 * through the compiled dist/.
 */
const OPEN_AT = new URL('./fixtures/open-at.mjs', import.meta.url).pathname;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-first-use-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('several processes creating one new state database', () => {
  test('all six succeed, and the migrations are applied exactly once', async () => {
    const path = join(dir, 'state', 'reelpipe.db');
    // Three rounds: the race is a matter of microseconds, and each round is a fresh database.
    for (const round of [1, 2, 3]) {
      const file = path.replace('.db', `-${round}.db`);
      const at = Date.now() + 1500;
      const children = await Promise.all(
        Array.from({ length: 6 }, () => execa('node', [OPEN_AT, file, String(at)], { reject: false, timeout: 30_000 })),
      );
      for (const child of children) expect(child.exitCode, child.stderr).toBe(0);
      const db = new Database(file, { readonly: true });
      try {
        expect(db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual(MIGRATIONS.map((m) => m.version));
      } finally {
        db.close();
      }
    }
  });
});
