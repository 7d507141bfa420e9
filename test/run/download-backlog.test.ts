import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest } from '../../src/plan/index.js';
import { DownloadBacklog } from '../../src/run/download-backlog.js';
import { executePlan } from '../../src/run/execute-plan.js';
import { RunEvents } from '../../src/run/run-events.js';
import { resolveRunOptions } from '../../src/run/run-options.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { openStore, type Store } from '../../src/state/index.js';

describe('the download backlog', () => {
  test('has room under its limit; when full, those waiting go on once a download starts', async () => {
    const backlog = new DownloadBacklog(2);
    expect(backlog.room()).toBeUndefined();
    const started = [backlog.join(), backlog.join()];
    const order: string[] = [];
    void backlog.room()?.then(() => order.push('a'));
    void backlog.room()?.then(() => order.push('b'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    started[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a', 'b']);
    started[0]!(); // once only: a second call frees nothing
    expect(backlog.size).toBe(1);
    started[1]!();
    expect(backlog.size).toBe(0);
  });
});

describe('a run whose downloads are slower than the service', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelpipe-backlog-'));
    store = await openStore(join(dir, 'state.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('stops submitting while finished jobs wait for their downloads, and still makes every job', async () => {
    // Every download is held 150 ms (60 s ÷ speed 400), one at a time; a job lives 68 ms.
    const sandbox = await startSandbox({ port: 0, speed: 400, seed: 5, faults: { rates: { slowDownload: 1 }, slowMs: 60_000 } });
    const client = createClient({ baseUrl: sandbox.url, apiId: 'test-id', apiKey: 'test-key' });
    try {
      const rows = Array.from({ length: 16 }, (_, i) => `SKU-${i},"Hello there number ${i}."`).join('\n');
      writeFileSync(join(dir, 'rows.csv'), `sku,script\n${rows}\n`);
      writeFileSync(join(dir, 'm.yaml'), [
        'version: 1', 'name: backlog', 'outputs: out', 'concurrency: 2', 'steps:', '  - id: s', '    kind: ai_short',
        '    for_each: { csv: rows.csv }', '    name: "{{ row.sku }}"', '    with: { script: "{{ row.script }}", style: 3D, aspect_ratio: 9x16 }', '',
      ].join('\n'));
      const plan = planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
      const events = new RunEvents();
      let sent = 0;
      let downloaded = 0;
      let mostAhead = 0;
      events.on('job:status', (e) => {
        if (e.status === 'submitted') sent++;
        if (e.status === 'downloaded') downloaded++;
        mostAhead = Math.max(mostAhead, sent - downloaded);
      });
      const result = await executePlan(plan, { store, client, events }, resolveRunOptions({ ratePerSecond: 1000, timeScale: 1 / 400, downloadConcurrency: 1 }, { concurrency: 2, maxCredits: null }));
      expect(result.counts).toEqual({ downloaded: 16 });
      // At most: 2 in the service, 4 (twice the slots) waiting for a download, 1 downloading.
      expect(mostAhead).toBeLessThanOrEqual(2 + 4 + 1);
    } finally {
      await client.close();
      await sandbox.close();
    }
  }, 30_000);
});
