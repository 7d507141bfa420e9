// A night's usual size on default settings (issue 24): 2,000 AI Shorts at concurrency 64 against
// a separate `reelpipe sandbox --speed 24 --capacity 64`, made by reelpipe with its defaults (no
// --rate; only --time-scale 1/24, which matches its waits to the sandbox's speed), the obvious
// client and the community SDK pattern, taking turns in each of three rounds (--quick: 1,000 jobs,
// one round), each run on a fresh sandbox. At this size a run's fixed costs show: besides the
// side-by-side figures, what each client spends before its first POST and after its last file.
// Target: reelpipe's CPU per job below the obvious client's (median of 3). Figures only.
import { obviousClient, reelpipe, sdkPattern } from './lib/clients.js';
import { roundsOf } from './lib/measure-run.js';
import { sized } from './lib/options.js';
import { machineLine, publish } from './lib/results.js';
import { EDGE_METRICS, runLine, sideBySide, summariseRuns } from './lib/run-table.js';
import { markdownTable } from './lib/table.js';
import { ahead, TARGET_HEADERS, targetRows } from './lib/targets.js';

const SPEED = 24;
const work = { kind: 'ai_short', jobs: sized(2_000, 1_000), concurrency: 64, capacity: 64, timeScale: 1 / SPEED };
const rounds = sized(3, 1);
const clients = [reelpipe('reelpipe (defaults)', { rate: null }), obviousClient(), sdkPattern()];
const names = clients.map((c) => c.name);

console.log(machineLine());
console.log(`${work.jobs.toLocaleString('en-US')} AI Shorts, concurrency ${work.concurrency}, sandbox --speed ${SPEED} --capacity ${work.capacity}; reelpipe run --time-scale 1/${SPEED}, no --rate; baselines poll every 2 s × 1/${SPEED}; ${rounds} round(s)`);
const edges = (run) => `; before the first POST ${Math.round(run.beforeFirstPostMs)} ms, after the last file ${Math.round(run.afterLastFileMs)} ms`;
const runs = await roundsOf(clients, work, { speed: SPEED, rounds, line: runLine, more: edges });

const summaries = summariseRuns(runs, names, EDGE_METRICS);
const [ours, obvious] = names.map((name) => summaries[name]);
const scope = work.jobs === 2_000 ? '' : ` (stated for 2,000 jobs; measured at ${work.jobs.toLocaleString('en-US')})`;
const targets = [ahead(`client CPU per job below the obvious client's${scope} (ms)`, ours.cpuPerJobMs, obvious.cpuPerJobMs, 'obvious client')];

publish('side-by-side-2k', [
  { title: `${work.jobs.toLocaleString('en-US')} AI Shorts on default settings, side by side (min / median of ${rounds} run${rounds === 1 ? '' : 's'})`, table: sideBySide(summaries, names, EDGE_METRICS) },
  { title: 'targets', table: markdownTable(TARGET_HEADERS, targetRows(targets)) },
], { settings: { ...work, speed: SPEED, rounds }, summaries, targets, runs });
