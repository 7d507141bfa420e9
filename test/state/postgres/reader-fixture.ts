/**
 * One state, as rows, that both readers are asked about (pg-reader.test.ts): a manifest's runs
 * (one refused, one holding the lock, the newest without work), jobs of every kind of standing —
 * the plan's, an edited row's earlier versions, a removed step's, a forgotten one's — their
 * attempts, charges of every state and lapse, files, items, hook runs, a catalogue, and another
 * manifest's rows that no answer may include. Keys differ in case, so byte-wise order is seen.
 */

export const MANIFEST = 'proj/shorts';
const OTHER = 'proj/other';

/** The plan the reads are made for: the earlier versions and the removed job are outside it. */
export const PLAN_JOBS = [
  { key: 'a', step: 'shorts', outputName: 'clip-a' },
  { key: 'b', step: 'shorts', outputName: 'clip-b' },
  { key: 'c', step: 'ads', outputName: 'ad-1' },
  { key: 'd', step: 'ads', outputName: 'ad-2' },
  { key: 'd2', step: 'ads', outputName: 'ad-3' },
  { key: 'Z-upper', step: 'shorts', outputName: 'clip-z' },
];

type Row = Record<string, string | number | null>;

const job = (key: string, step: string, outputName: string, status: string, createdAt: number, extra: Row = {}): Row => ({
  key, manifest: MANIFEST, step, kind: step === 'ads' ? 'html_ads' : 'ai_short', output_name: outputName, request: JSON.stringify({ script: `script ${key}` }),
  status, created_at: createdAt, updated_at: createdAt + 1, ...extra,
});

const run = (id: number, manifest: string, startedAt: number, extra: Row = {}): Row => ({ id, manifest, host: `h${id}`, pid: id * 11, started_at: startedAt, ...extra });

const event = (id: number, runId: number | null, jobKey: string | null, type: string, data: unknown = null, manifest = MANIFEST): Row => ({
  id, at: 1000 + id, run_id: runId, job_key: jobKey, type, data: data === null ? null : typeof data === 'string' ? data : JSON.stringify(data), manifest,
});

const charge = (id: number, jobKey: string, step: string, outputName: string, state: string, extra: Row = {}): Row => ({
  id, manifest: MANIFEST, job_key: jobKey, step, kind: 'ai_short', output_name: outputName, state, created_at: 1000 + id, ...extra,
});

const hook = (id: number, hookName: string, jobKey: string | null, state: string, extra: Row = {}): Row => ({
  id, manifest: MANIFEST, hook: hookName, job_key: jobKey, output_idx: jobKey === null ? null : 0, state, argv: JSON.stringify(['echo', `${id}`]), started_at: 1600 + id, ...extra,
});

const planned = (from: string | undefined, items: string[]) => JSON.stringify({ ...(from === undefined ? {} : { from }), items });

/** The rows by table, in an order the foreign keys accept; jobs in the order they were first recorded (created_at, then their place in the plan). */
export const FIXTURE: [table: string, rows: Row[]][] = [
  ['runs', [
    run(1, MANIFEST, 1000, { finished_at: 1700, outcome: 'OK', max_credits: 50.5, manifest_path: '/x/shorts.yaml' }),
    run(2, MANIFEST, 1800, { finished_at: 1800, outcome: 'E_MANIFEST', refusal: 'the manifest is not valid', manifest_path: '/x/shorts.yaml' }),
    run(3, MANIFEST, 2000),
    run(4, MANIFEST, 2500),
    run(5, OTHER, 2600, { finished_at: 2700, outcome: 'OK' }),
  ]],
  ['jobs', [
    job('Old-a0', 'shorts', 'clip-a', 'failed', 400, { failed_reason: 'too long' }),
    job('old-a', 'shorts', 'clip-a', 'done', 500, { request: JSON.stringify({ script: 'the old a' }) }),
    job('gone', 'removed-step', 'x', 'done', 600),
    job('e', 'ads', 'ad-9', 'done', 900, { planned_items: planned('req-other', ['s9']), plan_order: 0 }),
    job('a', 'shorts', 'clip-a', 'done', 1000, { remote_id: 'r-a', credits_used: 4.35, submitted_at: 1100, finished_at: 1500, attempt_count: 2, plan_order: 0 }),
    job('b', 'shorts', 'clip-b', 'in_doubt', 1000, { doubt_reason: 'no answer', result: JSON.stringify({ legacy: true }), credits_reserved: 5.1, plan_order: 1 }),
    job('c', 'ads', 'ad-1', 'planned', 1000, { planned_items: planned('req-all', ['s0']), credits_estimated: 3, plan_order: 2 }),
    job('d', 'ads', 'ad-2', 'submitted', 1000, { planned_items: planned('req-all', ['s1', 's2']), remote_id: 'r-d', credits_reserved: 7, plan_order: 3 }),
    job('d2', 'ads', 'ad-3', 'done', 1000, { planned_items: planned('req-all', ['s3']), credits_used: 3.3, plan_order: 4 }),
    job('Z-upper', 'shorts', 'clip-z', 'in_doubt', 1000, { planned_items: planned(undefined, ['x']), doubt_reason: 'lost', plan_order: 5 }),
    { ...job('a', 'shorts', 'clip-a', 'done', 1000), manifest: OTHER },
  ]],
  ['job_results', [{ manifest: MANIFEST, job_key: 'a', result: JSON.stringify({ video_url: 'https://cdn.example/a.mp4' }) }]],
  ['attempts', [
    { id: 1, manifest: MANIFEST, job_key: 'a', run_id: 1, state: 'answered', request: '{"script":"sent a"}', intent_at: 1050, answered_at: 1100, remote_id: 'r-a-1', ended: 'failed', ended_reason: 'it failed', retried_in_run: 3 },
    { id: 2, manifest: MANIFEST, job_key: 'b', run_id: 1, state: 'in_doubt', request: '{"script":"sent b"}', intent_at: 1060, error: 'no answer', hook_token: 'tok-b', delivered_id: 'r-b-delivered' },
    { id: 3, manifest: MANIFEST, job_key: 'd', run_id: 1, state: 'answered', request: '{"script":"sent d"}', intent_at: 1070, answered_at: 1080, remote_id: 'r-d' },
    { id: 4, manifest: MANIFEST, job_key: 'old-a', run_id: null, state: 'answered', request: '{"script":"the old a"}', intent_at: 500, remote_id: 'r-old', ended: 'done' },
    { id: 5, manifest: MANIFEST, job_key: 'a', run_id: 3, state: 'answered', request: '{"script":"sent a again"}', intent_at: 2050, answered_at: 2060, remote_id: 'r-a', ended: 'done' },
    { id: 6, manifest: MANIFEST, job_key: 'b', run_id: 3, state: 'in_doubt', request: '{"script":"sent b again"}', intent_at: 2070, error: 'no answer again' },
  ]],
  ['charges', [
    charge(1, 'a', 'shorts', 'clip-a', 'settled', { attempt_id: 1, run_id: 1, reserved: 5, charged: 1.15, lapsed: 'retried', remote_id: 'r-a-1' }),
    charge(2, 'b', 'shorts', 'clip-b', 'open', { attempt_id: 2, run_id: 1, reserved: 5.1 }),
    charge(3, 'd', 'ads', 'ad-2', 'settled', { attempt_id: 3, run_id: 1, reserved: 7 }),
    charge(4, 'old-a', 'shorts', 'clip-a', 'settled', { attempt_id: 4, reserved: 2, charged: 2.2, lapsed: 'superseded' }),
    charge(5, 'a', 'shorts', 'clip-a', 'settled', { attempt_id: 5, run_id: 3, reserved: 5, charged: 4.35 }),
    charge(6, 'b', 'shorts', 'clip-b', 'open', { attempt_id: 6, run_id: 3, reserved: 2.25 }),
    charge(7, 'd2', 'ads', 'ad-3', 'settled', { run_id: 1, reserved: 4, charged: 3.3, refunded: 1.1, refund_derived: 1 }),
    charge(8, 'gone', 'removed-step', 'x', 'settled', { run_id: 1, charged: 1.05 }),
    charge(9, 'forgot', 'shorts', 'clip-f', 'settled', { run_id: 1, charged: 0.7, lapsed: 'forgotten' }),
    charge(10, 'c', 'ads', 'ad-1', 'none', { charged: 0 }),
    charge(11, 'Z-upper', 'shorts', 'clip-z', 'open', { run_id: 3, reserved: 0.1 }),
    charge(12, 'zz-outside', 'shorts', 'clip-y', 'open', { reserved: 0.2 }),
    { ...charge(13, 'a', 'shorts', 'clip-a', 'settled', { charged: 100 }), manifest: OTHER },
  ]],
  ['outputs', [
    { manifest: MANIFEST, job_key: 'a', idx: 0, url: 'https://cdn.example/a.mp4', path: 'clip-a.mp4', bytes: 100, sha256: 'sha-a', content_type: 'video/mp4', downloaded_at: 1600 },
    { manifest: MANIFEST, job_key: 'a', idx: 1, url: 'https://cdn.example/a-1.mp4' },
    { manifest: MANIFEST, job_key: 'd2', idx: 1, url: 'https://cdn.example/s3.html', path: 'ad-3/1.html', bytes: 9, sha256: 'sha-d2-1', downloaded_at: 1650 },
    { manifest: MANIFEST, job_key: 'd2', idx: 0, url: 'https://cdn.example/s3.html', path: 'ad-3/0.html', bytes: 8, sha256: 'sha-d2-0', content_type: 'text/html', downloaded_at: 1640 },
    { manifest: MANIFEST, job_key: 'Z-upper', idx: 0, url: 'https://cdn.example/z.mp4', path: 'clip-z.mp4', sha256: 'sha-z' },
  ]],
  ['job_items', [
    { manifest: MANIFEST, job_key: 'd2', idx: 1, item: 's4', state: 'failed', failed_reason: 'no such style', attempt_id: null, remote_id: 'r-d2', refunded: 1.1, refund_derived: 1, updated_at: 1700 },
    { manifest: MANIFEST, job_key: 'd2', idx: 0, item: 's3', state: 'done', url: 'https://cdn.example/s3.html', remote_id: 'r-d2', updated_at: 1700 },
    { manifest: MANIFEST, job_key: 'Z-upper', idx: 0, item: 'x', state: 'done', updated_at: 1700 },
  ]],
  ['hook_runs', [
    hook(1, 'on_output', 'a', 'failed', { run_id: 1, output_sha256: 'sha-a', finished_at: 1650, exit_code: 1, duration_ms: 40, stdout_tail: 'out', stderr_tail: 'err', error: null }),
    hook(2, 'on_output', 'a', 'ok', { run_id: 3, output_sha256: 'sha-a', finished_at: 2200, exit_code: 0, duration_ms: 100 }),
    hook(3, 'on_output', 'Z-upper', 'failed', { run_id: 3, signal: 'SIGTERM', timed_out: 1, error: 'timed out' }),
    hook(4, 'on_finish', null, 'ok', { run_id: 1, exit_code: 0 }),
    hook(5, 'on_finish', null, 'interrupted', { run_id: 3, error: 'the run that started it ended before it did' }),
    { ...hook(6, 'on_finish', null, 'ok'), manifest: OTHER },
  ]],
  ['events', [
    event(1, 1, null, 'run:started', { manifest: MANIFEST }),
    event(2, 1, 'a', 'job:answered'),
    event(3, 1, 'b', 'job:in-doubt'),
    event(4, 1, 'a', 'job:done'),
    event(5, 1, null, 'run:finished', { outcome: 'OK', counts: { done: 1, in_doubt: 1 } }),
    event(6, 2, null, 'run:started'),
    event(7, 2, null, 'run:finished', { outcome: 'E_MANIFEST' }),
    event(8, 3, 'b', 'job:in-doubt'),
    event(9, 3, 'Z-upper', 'job:in-doubt'),
    event(10, 4, null, 'run:started'),
    event(11, 4, null, 'run:finished', '{not json'),
    event(12, 5, 'a', 'job:done', null, OTHER),
  ]],
  ['locks', [
    { name: MANIFEST, run_id: 3, host: 'h3', pid: 33, acquired_at: 2000, heartbeat_at: 2100 },
    { name: OTHER, run_id: 5, host: 'h5', pid: 55, acquired_at: 2600, heartbeat_at: 2650 },
  ]],
  ['catalogues', [{ service: 'https://svc.example', name: 'styles', fetched_at: 900, body: JSON.stringify([{ id: 's1', name: 'Spin' }]) }]],
];

/** The statements that give both stores the fixture's identity (each made its own when migrated). */
export const metaUpdates = (mark: (n: number) => string) =>
  [['fixture-state', 'state_id'], ['2026-01-01T00:00:00Z', 'created_at']].map((values) => ({ sql: `UPDATE meta SET value = ${mark(1)} WHERE key = ${mark(2)}`, values }));

/** `INSERT INTO table (columns) VALUES (marks)` for one row, with `mark(n)` the n-th placeholder. */
export function insertOf(table: string, row: Row, mark: (n: number) => string): { sql: string; values: (string | number | null)[] } {
  const columns = Object.keys(row);
  return { sql: `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => mark(i + 1)).join(', ')})`, values: Object.values(row) };
}
