import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { HookArg, Manifest } from '../../src/manifest/types.js';
import { runFinishHook } from '../../src/run/hooks/finish-hook.js';
import type { RunSummary } from '../../src/run/notify/run-summary.js';
import { openStore, type Store } from '../../src/state/index.js';
import { peek } from '../state/peek.js';

/** on_finish: the run's values and totals as placeholders, the summary in its environment, recorded before and after. */
const NODE = process.execPath;
const ph = (ns: 'run' | 'totals', name: string) => [{ ns, name, text: `{{ ${ns}.${name} }}` }] as HookArg;

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-finish-'));
  store = (await openStore(join(dir, 'state.db'))).useManifest(join(dir, 'm.yaml'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const summary: RunSummary = {
  name: 'nightly', manifest: '/p/m.yaml', runId: 3, ending: 'failure', exitCode: 1, message: 'x', jobs: 4,
  counts: { done: 2, 'hook failed': 1, 'in doubt': 1 }, credits: { estimated: 20, unknownEstimates: 0, used: 17.5, unknownUsed: 0, cap: null, thisRun: { used: 0, unknown: 0 }, apart: { superseded: 0, removed: 0, forgotten: 0 } },
  report: '/o.sandbox/report/index.html', outputs: '/o.sandbox', elapsedSeconds: 1,
};
const manifest = (argv: HookArg[]): Pick<Manifest, 'file' | 'name' | 'hooks'> => ({
  file: join(dir, 'm.yaml'), name: 'nightly', hooks: { timeoutMs: 30_000, concurrency: 1, onFinish: { argv, path: ['hooks', 'on_finish'], timeoutMs: 30_000 } },
});
const WRITE_ARGS = 'require("fs").writeFileSync("finish.json", JSON.stringify({ args: process.argv.slice(1), summary: process.env.REELPIPE_SUMMARY, done: process.env.REELPIPE_TOTALS_DONE }))';

describe('on_finish', () => {
  test("reads the run (its outputs folder is the run's, .sandbox included) and the totals per state", async () => {
    store.forRun(3);
    const argv = [[NODE], ['-e'], [WRITE_ARGS], ph('run', 'outputs'), ph('run', 'outcome'), ph('run', 'exit_code'), ph('run', 'report'), ph('totals', 'done'), ph('totals', 'hook_failed'), ph('totals', 'failed'), ph('totals', 'credits_used')];
    const row = await runFinishHook(manifest(argv), store, summary, { PATH: process.env.PATH ?? '' });
    expect(row).toMatchObject({ hook: 'on_finish', state: 'ok', exitCode: 0, runId: 3, jobKey: null });
    const seen = JSON.parse(readFileSync(join(dir, 'finish.json'), 'utf8')) as { args: string[]; summary: string; done: string };
    expect(seen.args).toEqual(['/o.sandbox', 'failure', '1', '/o.sandbox/report/index.html', '2', '1', '0', '17.5']);
    expect(JSON.parse(seen.summary)).toEqual(summary);
    expect(seen.done).toBe('2');
  });

  test('a run of it cut off by a dead process is marked interrupted when the next one starts', async () => {
    const cut = await store.hookBegin('on_finish', null, ['x']);
    await runFinishHook(manifest([[NODE], ['-e'], ['']]), store, summary, { PATH: process.env.PATH ?? '' });
    const db = peek(join(dir, 'state.db'));
    const states = db.prepare('SELECT id, state FROM hook_runs ORDER BY id').all();
    db.close();
    expect(states).toEqual([{ id: cut, state: 'interrupted' }, { id: cut + 1, state: 'ok' }]);
  });
});
