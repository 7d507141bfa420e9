// The side-by-side: 10,000 AI Shorts (--quick: 1,000) at concurrency 64 against a
// separate `reelpipe sandbox --speed 24 --capacity 64`, made by reelpipe polling, reelpipe with
// webhooks, the obvious client and the community SDK pattern, three rounds (--quick: one), each
// run on a fresh sandbox; the clients take turns within a round, so a machine busier at one
// moment weighs on all of them. Prints each figure as min / median over the rounds, and the
// targets beside them. Figures only; no thresholds asserted.
import { obviousClient, reelpipe, sdkPattern } from './lib/clients.js';
import { roundsOf } from './lib/measure-run.js';
import { sized } from './lib/options.js';
import { machineLine, publish } from './lib/results.js';
import { runLine, sideBySide, summariseRuns } from './lib/run-table.js';
import { markdownTable } from './lib/table.js';
import { ahead, atMost, TARGET_HEADERS, targetRows } from './lib/targets.js';

const SPEED = 24;
const work = { kind: 'ai_short', jobs: sized(10_000, 1_000), concurrency: 64, capacity: 64, timeScale: 1 / SPEED };
const rounds = sized(3, 1);
const clients = [reelpipe('reelpipe (polling)'), reelpipe('reelpipe (webhooks)', { webhooks: true }), obviousClient(), sdkPattern()];
const names = clients.map((c) => c.name);

console.log(machineLine());
console.log(`${work.jobs.toLocaleString('en-US')} AI Shorts, concurrency ${work.concurrency}, sandbox --speed ${SPEED} --capacity ${work.capacity}; reelpipe with --time-scale 1/${SPEED} --rate 1000; baselines poll every 2 s × 1/${SPEED}; ${rounds} round(s)`);
const runs = await roundsOf(clients, work, { speed: SPEED, rounds, line: runLine });

const summaries = summariseRuns(runs, names);
const [polling, webhooks, obvious] = names.map((name) => summaries[name]);
const scope = work.jobs === 10_000 ? '' : ` (stated for 10,000 jobs; measured at ${work.jobs.toLocaleString('en-US')})`;
const targets = [
  atMost(`makespan ÷ ideal, polling${scope}`, polling.makespanRatio, 1.04, { digits: 3 }),
  atMost(`makespan ÷ ideal, webhooks${scope}`, webhooks.makespanRatio, 1.02, { digits: 3 }),
  ahead('polling ahead of the obvious client (makespan ÷ ideal)', polling.makespanRatio, obvious.makespanRatio, 'obvious client', { digits: 3 }),
  ahead('webhooks ahead of the obvious client (makespan ÷ ideal)', webhooks.makespanRatio, obvious.makespanRatio, 'obvious client', { digits: 3 }),
  atMost('API requests per job, polling', polling.apiPerJob, 1.15),
  atMost('API requests per job, webhooks', webhooks.apiPerJob, 1.2),
  atMost('client CPU per job, polling', polling.cpuPerJobMs, 2, { unit: ' ms' }),
  atMost('client CPU per job, webhooks', webhooks.cpuPerJobMs, 2, { unit: ' ms' }),
  atMost('peak memory, polling', polling.peakMb, 200, { digits: 0, unit: ' MB' }),
  atMost('peak memory, webhooks', webhooks.peakMb, 200, { digits: 0, unit: ' MB' }),
];

publish('side-by-side', [
  { title: `${work.jobs.toLocaleString('en-US')} AI Shorts side by side (min / median of ${rounds} run${rounds === 1 ? '' : 's'})`, table: sideBySide(summaries, names) },
  { title: 'targets', table: markdownTable(TARGET_HEADERS, targetRows(targets)) },
], { settings: { ...work, speed: SPEED, rounds }, summaries, targets, runs });
