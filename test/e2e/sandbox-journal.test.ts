import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

const HOLD_JOURNAL = new URL('../sandbox/fixtures/hold-journal.mjs', import.meta.url).pathname;

/**
 * `run --sandbox` starts its sandbox in-process, on a journal beside the state database: the
 * embedded service remembers its jobs across runs and kills, like a real one.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env, timeout: 60_000 });

function statuses(): Record<string, number> {
  const db = new Database(join(dir, 'state', 'sandbox.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT status, count(*) AS n FROM jobs GROUP BY status').all() as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    db.close();
  }
}

/** The embedded service's own counters, by replaying its journal in a sandbox of our own. */
async function serviceStats() {
  const sandbox = await startSandbox({ port: 0, journal: join(dir, 'state', 'sandbox-service.jsonl'), seed: 1, credits: 1_000_000 });
  try {
    return sandbox.stats();
  } finally {
    await sandbox.close();
  }
}

/** Lipsyncs only: a kind the runner reconciles by listing, so every kill must end in "found" or "absent". */
const CRASH = `
version: 1
name: crash
outputs: out
concurrency: 3
steps:
  - id: talk
    kind: lipsync_v2
    for_each:
      rows: [{ t: "One: the trail." }, { t: "Two: the river." }, { t: "Three: the summit." }, { t: "Four: the ridge." }, { t: "Five: home." }]
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5eed0000-0000-4000-8000-000000000101 }
          voice: { type: text, input_text: "{{ row.t }}" }
`;

describe('run --sandbox on a journal', () => {
  test('killed with SIGKILL mid-run, again and again, then re-run: exit 0, every job done, zero duplicates', async () => {
    writeFileSync(join(dir, 'crash.yaml'), CRASH);
    let killed = 0;
    for (const point of ['after-post:2', 'before-post:2', 'after-poll:1', 'mid-download:1']) {
      const run = await cli(['run', 'crash.yaml', '--sandbox'], { REELPIPE_TEST_KILL_AT: point });
      if (run.signal === 'SIGKILL') killed++;
      else expect(run.exitCode, `${point}: ${run.stderr}`).toBe(0);
    }
    expect(killed).toBeGreaterThanOrEqual(3);
    const last = await cli(['run', 'crash.yaml', '--sandbox']);
    expect(last.exitCode, last.stderr).toBe(0);
    expect(statuses()).toEqual({ downloaded: 5 });
    const stats = await serviceStats();
    expect(stats.duplicates.total).toBe(0);
    expect(stats.created.lipsync_v2).toBe(5);
  });

  test('the demo, then two more example manifests on the same sandbox state: each exits 0 (ids never collide)', async () => {
    cpSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
    for (const manifest of ['demo.yaml', 'ad-clone.yaml', 'html-ads.yaml']) {
      const run = await cli(['run', join('examples', manifest), '--sandbox']);
      expect(run.exitCode, `${manifest}: ${run.stderr}`).toBe(0);
    }
  });

  test('while another process writes the sandbox journal, a second run --sandbox is refused with exit 75 and submits nothing', async () => {
    writeFileSync(join(dir, 'crash.yaml'), CRASH);
    const holder = spawn('node', [HOLD_JOURNAL, join(dir, 'state', 'sandbox-service.jsonl')], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await once(holder.stdout!, 'data');
      const refused = await cli(['run', 'crash.yaml', '--sandbox']);
      expect(refused.exitCode, refused.stderr).toBe(75);
      expect(refused.stderr).toMatch(/sandbox journal .*sandbox-service\.jsonl is in use by another process/);
    } finally {
      const exited = once(holder, 'exit');
      holder.stdin!.end();
      await exited;
    }
    const after = await cli(['run', 'crash.yaml', '--sandbox']);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(statuses()).toEqual({ downloaded: 5 });
  });
});
