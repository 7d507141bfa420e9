import { afterAll, beforeAll, expect, test } from 'vitest';
import { pgRows } from '../helpers/pg-database.js';
import { databaseUrl, startCluster, startPostgres, stopCluster, type PostgresServer } from '../helpers/postgres-server.js';
import { openProject, TIME_SCALE, type Project } from './harness.js';
import { makeLink, RECONCILABLE_JOBS, reconcilableManifest } from './reconcilable-fixture.js';

/**
 * The state's database gone for longer than a run waits for it (30 s of reconnects): the run stops
 * sending and exits 74, saying so; once the database is back, running the same command again
 * finishes the batch — every job made once, the credits in the state what the service charged.
 * Lipsync and ad clone jobs (reconcilable-fixture.ts), whose creations a resume can find at the
 * service (a POST whose answer was lost with the database is adopted, never sent again).
 */
const JOBS = RECONCILABLE_JOBS;

let server: PostgresServer;
let project: Project;
beforeAll(async () => {
  server = await startPostgres();
  await pgRows('CREATE DATABASE outage', server.url);
  project = await openProject();
  project.write('outage.yaml', reconcilableManifest('outage', await makeLink(project)));
}, 30_000);
afterAll(async () => {
  await project?.close();
  await server?.stop();
});

test('gone for longer than the run waits: exit 74; back again, a resume finishes the batch, nothing paid twice', async () => {
  const url = databaseUrl(server.url, 'outage');
  const run = () => project.cli(['run', 'outage.yaml', '--state', url, '--time-scale', TIME_SCALE]);
  const first = run();
  const created = () => (project.sandbox.stats().created.lipsync_v2 ?? 0) + (project.sandbox.stats().created.ad_clone ?? 0);
  for (let waited = 0; created() < 6 && waited < 400; waited++) await new Promise((r) => setTimeout(r, 25));
  const atStop = created();
  expect(atStop).toBeGreaterThanOrEqual(6);
  await stopCluster(server);
  const cut = await first;
  expect(cut.exitCode, cut.stderr).toBe(74);
  expect(cut.stderr).toMatch(/the state database postgres:\/\/postgres@127\.0\.0\.1:\d+\/outage cannot be reached/);
  // No intent can be recorded while the database is gone, so no POST is sent: at most the
  // creations already on their way (concurrency 3) land after the stop.
  expect(created() - atStop).toBeLessThanOrEqual(3);
  await startCluster(server);
  const codes: (number | undefined)[] = [];
  for (let resume = 0; resume < 3 && codes.at(-1) !== 0; resume++) codes.push((await run()).exitCode);
  expect(codes.at(-1), `resumes ended ${codes.join(', ')}`).toBe(0);
  const stats = project.sandbox.stats();
  expect((stats.created.lipsync_v2 ?? 0) + (stats.created.ad_clone ?? 0)).toBe(JOBS);
  expect(stats.duplicates.total).toBe(0);
  const [state] = await pgRows<{ done: number; charged: number }>(
    "SELECT (SELECT count(*)::int FROM jobs WHERE status = 'downloaded') AS done, (SELECT coalesce(sum(charged), 0) FROM charges) AS charged",
    url,
  );
  expect(state).toEqual({ done: JOBS, charged: stats.credits.charged });
}, 150_000);
