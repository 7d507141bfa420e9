import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/state/index.js';
import { runCli } from '../helpers/cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-status-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const MANIFEST = `
version: 1
name: one
outputs: out
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`;

test('status reads a state database an older reelpipe left (schema 3), its jobs under their manifest', async () => {
  writeFileSync(join(dir, 'm.yaml'), MANIFEST);
  const before = JSON.parse((await runCli(['status', 'm.yaml', '--json'], { cwd: dir })).stdout) as { jobs: { key: string; dbStatus: string | null }[] };
  expect(before.jobs).toEqual([expect.objectContaining({ state: 'not submitted', dbStatus: null })]);
  const key = before.jobs[0]!.key;
  mkdirSync(join(dir, 'state'));
  const db = new Database(join(dir, 'state', 'reelpipe.db'));
  migrate(db, MIGRATIONS.filter((m) => m.version <= 3));
  db.prepare(`INSERT INTO jobs (key, manifest, step, kind, request, status, remote_id, created_at, updated_at)
    VALUES (?, ?, 's', 'ai_short', '{}', 'running', 'r-1', 0, 0)`).run(key, join(dir, 'm.yaml'));
  db.close();
  const status = await runCli(['status', 'm.yaml', '--json'], { cwd: dir });
  expect(status.exitCode, status.stderr).toBe(0);
  expect(JSON.parse(status.stdout).jobs).toEqual([expect.objectContaining({ key, state: 'running', dbStatus: 'running', remoteId: 'r-1' })]);
});
