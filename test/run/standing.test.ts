import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { dependencies } from '../../src/run/dependencies.js';
import { standingOf } from '../../src/run/standing.js';
import type { JobRow } from '../../src/state/index.js';
import { CHAIN_MANIFEST } from '../helpers/chain-manifest.js';

let dir: string;
let plan: ListedPlan;
let keys: { short: string; teaser5: string; teaser10: string; final: string };
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-standing-'));
  writeFileSync(join(dir, 'm.yaml'), CHAIN_MANIFEST);
  plan = planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
  const [short, teaser5, teaser10, final] = plan.jobs.map((job) => job.key) as [string, string, string, string];
  keys = { short, teaser5, teaser10, final };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Row = Pick<JobRow, 'key' | 'status' | 'remoteId' | 'failedReason'>;
const row = (key: string, status: Row['status'], remoteId: string | null = null): Row => ({ key, status, remoteId, failedReason: null });
const byKey = (rows: Row[]) => new Map(rows.map((r) => [r.key, r]));

describe('jobs planned behind a job in doubt', () => {
  test('behind one nobody can search (an AI Short without its id): waiting on it, directly and down the chain, not open', () => {
    const standing = standingOf(plan, byKey([row(keys.short, 'in_doubt')]), dependencies(plan));
    expect(standing.undecided).toEqual([keys.short]);
    expect(standing.waitingOnDoubt).toEqual([
      { key: keys.teaser5, on: [keys.short] },
      { key: keys.teaser10, on: [keys.short] },
      { key: keys.final, on: [keys.short] },
    ]);
    expect(standing.open.notSubmitted).toEqual([]);
  });

  test.each<[string, (k: typeof keys) => Row[], (k: typeof keys) => Record<'notSubmitted' | 'waiting' | 'blocked', string[]>]>([
    [
      'behind one the next run can search for (its id was kept): open, the next run moves them on',
      (k) => [row(k.short, 'in_doubt', '11111111-2222-4333-8444-555555555555')],
      (k) => ({ notSubmitted: [k.teaser5, k.teaser10, k.final], waiting: [], blocked: [] }),
    ],
    [
      'behind a finished short and one teaser in doubt: the final waits on that teaser alone',
      (k) => [row(k.short, 'downloaded'), row(k.teaser5, 'in_doubt'), row(k.teaser10, 'downloaded')],
      (k) => ({ notSubmitted: [], waiting: [k.final], blocked: [] }),
    ],
    [
      'behind a failed teaser and one in doubt: blocked, since the failure needs a retry whatever the doubt says',
      (k) => [row(k.short, 'downloaded'), row(k.teaser5, 'in_doubt'), row(k.teaser10, 'failed')],
      (k) => ({ notSubmitted: [], waiting: [], blocked: [k.final] }),
    ],
  ])('%s', (_, rows, expected) => {
    const standing = standingOf(plan, byKey(rows(keys)), dependencies(plan));
    const want = expected(keys);
    expect({ notSubmitted: standing.open.notSubmitted, waiting: standing.waitingOnDoubt.map((w) => w.key), blocked: standing.blocked }).toEqual(want);
  });
});
